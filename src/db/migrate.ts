import type { Database } from './client.js';
import { migrations, type Migration } from './migrations/index.js';

// A fixed advisory-lock key so that several processes starting on one PostgreSQL
// (an indexer and many API servers) apply the migrations exactly once.
const MIGRATION_LOCK = 7_231_447_001;

/** Applies the migrations not applied yet (`list`: a prefix of them, for upgrade tests). */
export async function migrate(db: Database, list: ReadonlyArray<Migration> = migrations): Promise<string[]> {
  return db.transaction(async (tx) => {
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
    return applied;
  });
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

// Statements run one by one inside the caller's transaction (multi-statement exec would
// escape it on PGlite); the migrations contain no semicolons inside literals.
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => s.length > 0);
}
