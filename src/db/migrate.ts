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

// Statements run one by one inside the caller's transaction (multi-statement exec would
// escape it on PGlite); the migrations contain no semicolons inside literals.
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => s.length > 0);
}
