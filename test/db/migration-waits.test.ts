/**
 * What an upgrade on PostgreSQL meets beside it (operator review): a writer of a version before
 * the writer lock still running (a rolling deploy's overlap across migration 026), refused by
 * name before anything is applied; and a transaction left open on a table a migration needs,
 * which the migrations wait out in short attempts that each say who holds transactions open,
 * instead of standing silent behind it with their own locks held.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, type LockWait } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import { openDatabase } from '../../src/db/client.js';
import { OldWriterRunningError, WRITER_LOCK_MIGRATION } from '../../src/db/old-writers.js';
import { emptyPostgresDatabase, postgresAvailable } from '../support/databases.js';

const before = (id: string) => migrations.slice(0, migrations.findIndex((m) => m.id === id));

describe.runIf(await postgresAvailable())('migrations on PostgreSQL beside other sessions', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  async function database(upTo: string) {
    const empty = await emptyPostgresDatabase();
    const db = await openDatabase({ databaseUrl: empty.url });
    cleanups.push(empty.drop, () => db.close());
    await migrate(db, before(upTo));
    return { db, url: empty.url };
  }

  it('a writer of a version before the writer lock, still writing: refused by name, nothing applied; once it stops, the upgrade goes through', async () => {
    const { db } = await database(WRITER_LOCK_MIGRATION);
    await db.query('INSERT INTO chains (chain_id) VALUES (7), (8)');
    // what such a writer does on its own: its heartbeat and progress move
    const writing = setInterval(() => void db.query('UPDATE chains SET polled_at = now() WHERE chain_id = 8').catch(() => undefined), 200);
    try {
      const refused = await migrate(db, migrations, { oldWriterWatchMs: 1_000 }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OldWriterRunningError);
      expect((refused as OldWriterRunningError).chainIds).toEqual([8]);
      expect((refused as Error).message).toMatch(/^an indexer of a version before the writer lock .* is writing chain 8 to this database/);
    } finally {
      clearInterval(writing);
    }
    expect(await db.query('SELECT 1 FROM schema_migrations WHERE id = $1', [WRITER_LOCK_MIGRATION])).toEqual([]);
    // stopped: nothing moves, and the rest is applied
    await sleep(300);
    const applied = await migrate(db, migrations, { oldWriterWatchMs: 1_000 });
    expect(applied[0]).toBe(WRITER_LOCK_MIGRATION);
    expect(applied).toEqual(migrations.slice(migrations.findIndex((m) => m.id === WRITER_LOCK_MIGRATION)).map((m) => m.id));
  }, 60_000);

  it('a transaction left open on a table a migration needs: short attempts, each naming the open sessions, then applied once it ends', async () => {
    // 029 alters `tokens` (an exclusive lock), which the open transaction below has read
    const waiting = '029_unbounded_sums';
    const { db, url } = await database(waiting);
    const other = new pg.Client({ connectionString: url, application_name: 'a long report' });
    await other.connect();
    cleanups.push(() => other.end());
    await other.query('BEGIN');
    await other.query('SELECT count(*) FROM tokens');
    const waits: LockWait[] = [];
    const migrating = migrate(db, migrations, { onLockWait: (w) => waits.push(w) });
    // A reader of the table queues behind the migration's lock request while an attempt waits:
    // for the attempt's lock timeout at most (0.25 s, then 0.5, then 1 s each), never the
    // statement timeout's 5 s (rolling-upgrade review: 4.99 s with 5-s attempts).
    const readerWaits: number[] = [];
    const readUntil = Date.now() + 6_000;
    while (Date.now() < readUntil) {
      const started = performance.now();
      await db.query('SELECT count(*) FROM tokens');
      readerWaits.push(performance.now() - started);
    }
    expect(waits.length).toBeGreaterThanOrEqual(3);
    // oldest first: the report; the test's own reader may be listed after it when it is mid-query
    expect(waits[0]!.sessions[0]).toEqual(expect.objectContaining({ application: 'a long report', state: 'idle in transaction' }));
    expect(waits[0]!.sessions.filter((s) => s.state === 'idle in transaction')).toHaveLength(1);
    expect(Math.max(...readerWaits)).toBeGreaterThan(200);
    expect(Math.max(...readerWaits)).toBeLessThan(1_800);
    // between attempts the migration holds nothing: a reader of the table it alters is served
    await expect.poll(async () => (await db.query('SELECT count(*)::int AS n FROM token_balances'))[0], { timeout: 5_000 }).toEqual({ n: 0 });
    await other.query('COMMIT');
    expect(await migrating).toEqual(migrations.slice(migrations.findIndex((m) => m.id === waiting)).map((m) => m.id));
  }, 60_000);
});
