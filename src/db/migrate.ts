import type { Database, Queryable } from './client.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { migrations, type Migration } from './migrations/index.js';
import { refuseOldWriters, WRITER_LOCK_MIGRATION } from './old-writers.js';

// A fixed advisory-lock key so that several processes starting on one PostgreSQL
// (an indexer and many API servers) apply the migrations exactly once.
const MIGRATION_LOCK = 7_231_447_001;

export interface MigrateOptions {
  /** said each time the migrations wait for a lock another session holds, before they try again */
  onLockWait?: (wait: LockWait) => void;
  /** how long the first attempt waits for a lock before it rolls back (releasing what it took) and tries again; each next one waits twice as long, up to 4× this */
  lockTimeoutMs?: number;
  /** how long to watch for a writer of a version before the writer lock (old-writers.ts) */
  oldWriterWatchMs?: number;
}

/** One wait of the migrations for a lock: the sessions with a transaction open (PostgreSQL), oldest first. */
export interface LockWait {
  attempt: number;
  sessions: Array<{ pid: number; application: string; state: string; seconds: number }>;
}

const LOCK_TIMEOUT = '55P03';

/** The first attempt's lock wait (later ones up to 4×): how long a page that needs the table may queue behind the request. */
export const FIRST_LOCK_WAIT_MS = 250;

/**
 * Applies the migrations not applied yet (`list`: a prefix of them, for upgrade tests), in one
 * transaction. On PostgreSQL a migration can wait for a lock behind any open transaction (a
 * backup, a long report) while it holds the locks it took, and every page waits with it; so an
 * attempt waits a short while for a lock, then rolls back, says who holds transactions open,
 * and tries again (an operator review: a migration stood 39 s behind a report, silent, every
 * page a 503). The wait is short because a lock request also holds every later reader of the
 * table behind it (rolling-upgrade review: pages held 4.99 s by 5-s attempts); it doubles per
 * attempt up to 4× the first, so that a writer's transaction of a second or so ends inside one.
 */
export async function migrate(db: Database, list: ReadonlyArray<Migration> = migrations, options: MigrateOptions = {}): Promise<string[]> {
  await refuseOldWriters(db, list, options.oldWriterWatchMs ?? 3_000);
  const firstWait = options.lockTimeoutMs ?? FIRST_LOCK_WAIT_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await migrateOnce(db, list, firstWait * 2 ** Math.min(attempt - 1, 2));
    } catch (error) {
      if ((error as { code?: unknown }).code !== LOCK_TIMEOUT) throw error;
      options.onLockWait?.({ attempt, sessions: await openTransactions(db) });
      await sleep(Math.min(1_000 * attempt, 5_000));
    }
  }
}

async function migrateOnce(db: Database, list: ReadonlyArray<Migration>, lockTimeoutMs: number): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.round(lockTimeoutMs))}`);
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set((await tx.query<{ id: string }>('SELECT id FROM schema_migrations')).map((r) => r.id));
    if (list === migrations) refuseNewerDatabase(done);
    const applied: string[] = [];
    for (const migration of list) {
      if (done.has(migration.id)) continue;
      for (const statement of splitStatements(migration.sql)) await tx.query(statement);
      await migration.after?.(tx);
      await tx.query('INSERT INTO schema_migrations (id) VALUES ($1)', [migration.id]);
      applied.push(migration.id);
    }
    // A writer of the version before, still running, finds its token gone at its next commit
    // and rolls that batch back (writer-lock.ts `fenced`); from this version on, it then cannot
    // take the lock again on a database it does not know (`refuseNewerSchema`). Before, an old
    // `explorer index` went on committing for ~30 s after a new one migrated (rolling-upgrade review).
    if (applied.length > 0 && (done.has(WRITER_LOCK_MIGRATION) || applied.includes(WRITER_LOCK_MIGRATION))) {
      await tx.query('UPDATE chains SET writer = NULL WHERE writer IS NOT NULL');
    }
    return applied;
  });
}

/** The other sessions of this database with a transaction open, oldest first: what a lock may be waiting on (never their statements' text). */
async function openTransactions(db: Database): Promise<LockWait['sessions']> {
  if (db.engine !== 'postgres') return [];
  const rows = await db
    .query<{ pid: number; application: string; state: string; seconds: number }>(
      `SELECT pid, coalesce(nullif(application_name, ''), '-') AS application, coalesce(state, '-') AS state,
              round(extract(epoch FROM now() - xact_start))::int AS seconds
       FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL
       ORDER BY xact_start LIMIT 5`,
    )
    .catch(() => []);
  return rows;
}

/** A database a newer version has migrated: this version does not know what its tables now mean. */
export class NewerDatabaseError extends Error {
  override readonly name = 'NewerDatabaseError';
  constructor(readonly unknown: readonly string[]) {
    super(
      `this database was migrated by a newer version of the explorer (migrations ${unknown.join(', ')}), which this version does not know: ` +
        'run that version or a newer one (going back could count balances twice: README, "How it works")',
    );
  }
}

/**
 * Refuses to run on a database with migrations this version does not have. Going back a
 * version used to be silent: the version before migration 028 does not know the backfill's token
 * parts and counts the batch they are ahead in twice (an outside review, RELIABILITY.md #14).
 */
function refuseNewerDatabase(done: ReadonlySet<string>): void {
  const known = new Set(migrations.map((m) => m.id));
  const unknown = [...done].filter((id) => !known.has(id)).sort();
  if (unknown.length > 0) throw new NewerDatabaseError(unknown);
}

/** The same refusal for a process already running, when it is about to write: a newer version may have migrated since it started. */
export async function refuseNewerSchema(db: Queryable): Promise<void> {
  refuseNewerDatabase(new Set((await db.query<{ id: string }>('SELECT id FROM schema_migrations')).map((r) => r.id)));
}

// Statements run one by one inside the caller's transaction (multi-statement exec would
// escape it on PGlite); the migrations contain no semicolons inside literals.
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => s.length > 0);
}
