/**
 * One small interface over the two engines. Queries are plain parameterised SQL in the
 * PostgreSQL dialect; both engines run the same migrations and the same statements.
 */
export type Row = Record<string, unknown>;

export interface QueryOptions {
  /**
   * Keep the statement prepared on each connection (PostgreSQL): parsed and analysed once per
   * connection instead of on every call, for the fixed statements of the request path. Planned
   * once only if PostgreSQL settles on the generic plan (after five runs, when its estimate is
   * no worse than the custom plans'); see `genericPlan`.
   */
  prepare?: boolean;
  /**
   * With `prepare`: run on connections where PostgreSQL always uses the statement's generic
   * plan (`plan_cache_mode = force_generic_plan`), so it is planned once per connection for
   * real. Left to itself (`auto`) the server compares the generic plan's estimate with the
   * custom plans' and may plan again on every call: the holders page did (its generic estimate
   * assumes an average token and a LIMIT of 10 % of it), at 0.3–0.5 ms of server CPU per
   * request, more than the execution. Only for statements whose plan is the same index range
   * scan whatever the parameters (the keyset pages); test/api/explain.test.ts holds their
   * generic plans. Ignored by PGlite (one session, statements unnamed).
   */
  genericPlan?: boolean;
}

export interface Queryable {
  query<T = Row>(text: string, params?: unknown[], options?: QueryOptions): Promise<T[]>;
}

/**
 * Statements without parameters that open and close a transaction around its work. PostgreSQL
 * sends them in one simple query with the BEGIN and with the COMMIT: no round trip of their
 * own, and a round trip inside a write's transaction costs more than its server time, since its
 * answer waits for whatever JavaScript holds the event loop (BENCHMARKS.md, "The writer's fence
 * in the BEGIN and the COMMIT"). One that fails (`beforeCommit` raising) ends the transaction:
 * nothing commits, and the error is the caller's. PGlite runs them as statements of the
 * transaction.
 */
export interface TransactionOptions {
  afterBegin?: string;
  beforeCommit?: string;
}

export interface Database extends Queryable {
  readonly engine: 'pglite' | 'postgres';
  /** Runs fn in one transaction: everything it writes commits together or not at all. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Runs several statements separated by semicolons, without parameters (migrations). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
  /** PGlite only: the whole data directory as a tarball */
  dump?(compression?: 'none' | 'gzip'): Promise<Blob>;
  /**
   * PostgreSQL only: a pool of its own whose statements the server cancels after
   * `statementTimeoutMs` (they then fail with StatementTimeoutError), for serving requests.
   * PGlite has no equivalent: it accepts `statement_timeout` but never fires it, and a
   * statement runs on the event loop's thread, so no JS timer can interrupt it either.
   */
  withStatementTimeout?(statementTimeoutMs: number): Database;
  /**
   * PostgreSQL only: a connection of its own, outside the pool, for session state that must
   * live as long as the process holds it (advisory locks: indexer/writer-lock.ts). PGlite's
   * one process per data directory needs none.
   */
  openSession?(): Promise<Session>;
}

/** A connection of its own: its session's state goes when it closes, or when it is lost. */
export interface Session extends Queryable {
  /** rejects once the connection is lost (never after close) */
  readonly lost: Promise<never>;
  close(): Promise<void>;
}

/** Raised for any failure to reach or use the database; the API maps it to 503. */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
  /** set when the database is busy rather than down: the answer says when to come back */
  readonly retryAfterSeconds: number | undefined = undefined;
  constructor(cause: unknown) {
    super(`database unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** A statement cancelled by the server's `statement_timeout`: 503, like an outage. */
export class StatementTimeoutError extends DatabaseUnavailableError {
  override name = 'StatementTimeoutError';
  constructor(cause: unknown) {
    super(cause);
    this.message = 'statement timeout';
  }
}

export interface OpenDatabaseOptions {
  /** postgres://… selects PostgreSQL; otherwise the embedded engine in dataDir. */
  databaseUrl?: string | undefined;
  dataDir?: string | undefined;
  /** in-memory PGlite, for tests */
  memory?: boolean;
  /** in-memory PGlite starting from this data directory dump (skips initdb: seconds per instance) */
  template?: Blob;
  poolSize?: number;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const { openPostgres } = await import('./postgres.js');
    return openPostgres(options.databaseUrl, options.poolSize);
  }
  const { openPglite } = await import('./pglite.js');
  return openPglite(options.memory || options.template ? undefined : (options.dataDir ?? './.explorer'), options.template);
}
