import pg from 'pg';
import type { Database, Queryable, QueryOptions, Session } from './client.js';
import { classifyFailures } from './unavailable.js';
import { withArrayLiterals } from './array-literal.js';

// int8 and numeric stay strings (pg's default); the query layer converts them to bigint so
// no uint256 or block number is ever squeezed through a JS number.
export async function openPostgres(url: string, poolSize = 10): Promise<Database> {
  return postgresDatabase(url, poolSize, undefined);
}

function postgresDatabase(url: string, poolSize: number, statementTimeoutMs: number | undefined): Database {
  const openPool = (options?: string) => {
    const p = new pg.Pool({
      connectionString: url,
      max: poolSize,
      connectionTimeoutMillis: 5_000,
      ...(statementTimeoutMs ? { statement_timeout: statementTimeoutMs } : {}),
      ...(options ? { options } : {}),
    });
    // An idle client that loses its connection (server restart) must not crash the process;
    // the pool drops it and the next query opens a new one.
    p.on('error', () => undefined);
    return p;
  };
  const pool = openPool();
  // pg prepares a named statement once per connection; one name per distinct text, since pg
  // refuses a known name with another text.
  const names = new Map<string, string>();
  const statement = (text: string, values: unknown[] | undefined, options: QueryOptions | undefined): pg.QueryConfig => {
    const literal = withArrayLiterals(values);
    if (!options?.prepare) return { text, values: literal };
    let name = names.get(text);
    if (name === undefined) names.set(text, (name = `explorer_${names.size}`));
    return { name, text, values: literal };
  };
  const wrap = (q: pg.Pool | pg.PoolClient): Queryable => ({
    async query<T>(text: string, params?: unknown[], options?: QueryOptions) {
      const result = await classifyFailures(() => q.query(statement(text, params, options)));
      return result.rows as T[];
    },
  });
  const root = wrap(pool);
  // Opened on the first `genericPlan` statement (the API's keyset pages), so the indexer and the
  // migrations never hold its connections.
  let genericPool: pg.Pool | null = null;
  let genericRoot: Queryable | null = null;
  const generic = () => (genericRoot ??= wrap((genericPool = openPool('-c plan_cache_mode=force_generic_plan'))));
  return {
    engine: 'postgres',
    query<T>(text: string, params?: unknown[], options?: QueryOptions) {
      return (options?.genericPlan && options.prepare ? generic() : root).query<T>(text, params, options);
    },
    async transaction(fn, options) {
      const client = await classifyFailures(() => pool.connect());
      // A checked-out client has no listener of the pool's: a connection lost between two of
      // the transaction's statements would be an unhandled 'error' event and end the process.
      // The lost connection fails the next statement instead, and the client is discarded.
      let lost: Error | undefined;
      const onError = (error: Error) => {
        lost = error;
      };
      client.on('error', onError);
      let failed: unknown;
      try {
        // (simple queries: a statement that fails stops the rest, the COMMIT among them)
        await classifyFailures(() => client.query(options?.afterBegin ? `BEGIN; ${options.afterBegin}` : 'BEGIN'));
        const result = await fn(wrap(client));
        await classifyFailures(() => client.query(options?.beforeCommit ? `${options.beforeCommit}; COMMIT` : 'COMMIT'));
        return result;
      } catch (error) {
        failed = error;
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.off('error', onError);
        // a client whose transaction failed may be broken: the pool opens a fresh one instead
        client.release(lost ?? (failed === undefined ? undefined : true));
      }
    },
    exec: async (sql) => {
      await pool.query(sql);
    },
    close: async () => {
      await Promise.all([pool.end(), genericPool?.end()]);
    },
    // a pool apart, so the indexer's long writes and the migrations keep no timeout
    withStatementTimeout: (ms) => postgresDatabase(url, poolSize, ms),
    openSession: () => openSession(url),
  };
}

async function openSession(url: string): Promise<Session> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, keepAlive: true });
  let closing = false;
  let lose!: (error: Error) => void;
  const lost = new Promise<never>((_resolve, reject) => (lose = reject));
  // (a handled rejection: only those who await `lost` see it)
  lost.catch(() => undefined);
  const onGone = (error?: Error) => {
    if (!closing) lose(error ?? new Error('the database connection closed'));
  };
  client.on('error', onGone);
  client.on('end', () => onGone());
  await classifyFailures(() => client.connect());
  return {
    lost,
    async query<T>(text: string, params?: unknown[]) {
      const result = await classifyFailures(() => client.query(text, withArrayLiterals(params)));
      return result.rows as T[];
    },
    async close() {
      closing = true;
      await client.end().catch(() => undefined);
    },
  };
}
