import type { Database } from '../client.js';

/** A session of this database waiting for a lock, and the session that holds it (never either's statement text). */
export interface LockWait {
  /** seconds the waiting statement has run */
  waitedS: number;
  holder: { pid: number; application: string; state: string; transactionS: number };
}

/**
 * The longest lock wait in this database, with a session it waits on: what a stuck indexer step
 * waits for when an operator's session holds a table (CREATE INDEX, VACUUM FULL, ALTER TABLE, a
 * transaction left open). PostgreSQL only; PGlite has one session, which cannot wait on another.
 */
export async function longestLockWait(db: Database): Promise<LockWait | null> {
  if (db.engine !== 'postgres') return null;
  const [row] = await db.query<{ waited: number; pid: number; application: string; state: string; held: number }>(
    `SELECT round(extract(epoch FROM now() - w.query_start))::int AS waited, b.pid,
            coalesce(nullif(b.application_name, ''), '-') AS application, coalesce(b.state, '-') AS state,
            coalesce(round(extract(epoch FROM now() - b.xact_start))::int, 0) AS held
     FROM pg_stat_activity w
     CROSS JOIN LATERAL unnest(pg_blocking_pids(w.pid)) AS blocking(pid)
     JOIN pg_stat_activity b ON b.pid = blocking.pid
     WHERE w.datname = current_database() AND w.wait_event_type = 'Lock'
     ORDER BY w.query_start LIMIT 1`,
  );
  return row ? { waitedS: row.waited, holder: { pid: row.pid, application: row.application, state: row.state, transactionS: row.held } } : null;
}
