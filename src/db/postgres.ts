import pg from 'pg';
import type { Database, Queryable } from './client.js';
import { classifyFailures } from './unavailable.js';

// int8 and numeric stay strings (pg's default); the query layer converts them to bigint so
// no uint256 or block number is ever squeezed through a JS number.
export async function openPostgres(url: string, poolSize = 10): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5_000 });
  // An idle client that loses its connection (server restart) must not crash the process;
  // the pool drops it and the next query opens a new one.
  pool.on('error', () => undefined);
  const wrap = (q: pg.Pool | pg.PoolClient): Queryable => ({
    async query<T>(text: string, params?: unknown[]) {
      const result = await classifyFailures(() => q.query(text, params));
      return result.rows as T[];
    },
  });
  const root = wrap(pool);
  return {
    engine: 'postgres',
    query: root.query,
    async transaction(fn) {
      const client = await classifyFailures(() => pool.connect());
      try {
        await client.query('BEGIN');
        const result = await fn(wrap(client));
        await classifyFailures(() => client.query('COMMIT'));
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    exec: async (sql) => {
      await pool.query(sql);
    },
    close: () => pool.end(),
  };
}
