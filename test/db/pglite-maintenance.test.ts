/**
 * The embedded database does what PostgreSQL's background processes would (PGlite is one
 * backend without them; two soak reviews): it checkpoints, checked on PostgreSQL's own control
 * data (`pg_control_checkpoint()`) and on the WAL directory, which stays bounded through rounds
 * of writes; and it vacuums and analyzes what is due, checked on a churned table's size against
 * the same churn in a PGlite that does not, on the planner's statistics, and on an index-only
 * scan's heap fetches (none once the pages are marked all-visible).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglite } from '../../src/db/pglite.js';
import type { Database } from '../../src/db/client.js';

describe('the embedded database maintains itself while it runs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'explorer-checkpoint-'));
  const vacuumed = mkdtempSync(join(tmpdir(), 'explorer-vacuum-'));
  afterAll(() => {
    for (const d of [dir, vacuumed]) rmSync(d, { recursive: true, force: true });
  });

  it('its checkpoint follows the WAL, and the WAL directory stops growing', async () => {
    const db = await openPglite(dir, undefined, 400);
    try {
      const checkpoint = async () => (await db.query<{ lsn: string }>('SELECT (pg_control_checkpoint()).checkpoint_lsn::text AS lsn'))[0]!.lsn;
      const segments = () => readdirSync(join(dir, 'pgdata', 'pg_wal')).filter((f) => /^[0-9A-F]{24}$/.test(f)).length;
      const lsnValue = (lsn: string) => {
        const [hi, lo] = lsn.split('/');
        return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
      };
      await db.exec('CREATE TABLE churn (a int, b text)');
      const first = lsnValue(await checkpoint());
      const counts: number[] = [];
      for (let round = 0; round < 12; round++) {
        await db.exec(`INSERT INTO churn SELECT g, repeat('x', 200) FROM generate_series(1, 20000) g; DELETE FROM churn WHERE a % 2 = 0`);
        await sleep(450);
        counts.push(segments());
      }
      expect(lsnValue(await checkpoint())).toBeGreaterThan(first);
      // 12 rounds write ~8 segments of WAL each 3 rounds; checkpointed, the directory is recycled
      expect(Math.max(...counts.slice(6)), `segments per round ${counts.join(', ')}`).toBeLessThanOrEqual(8);
    } finally {
      await db.close();
    }
  }, 120_000);

  it('a churned table keeps its size, its statistics are kept, an index-only scan reads no heap; without maintenance none of it', async () => {
    const maintained = await openPglite(vacuumed, undefined, 300);
    const control = await openPglite(undefined);
    try {
      const size = async (db: Database) => Number((await db.query<{ n: string }>(`SELECT pg_total_relation_size('kv')::text AS n`))[0]!.n);
      for (const db of [maintained, control]) await db.exec('CREATE TABLE kv (k int PRIMARY KEY, v bigint); INSERT INTO kv SELECT g, 0 FROM generate_series(1, 20000) g');
      const vacuums = async () => Number((await maintained.query<{ n: string }>(`SELECT vacuum_count::text AS n FROM pg_stat_user_tables WHERE relname = 'kv'`))[0]!.n);
      const sizes: number[] = [];
      for (let round = 0; round < 10; round++) {
        const before = await vacuums();
        for (const db of [maintained, control]) await db.exec('UPDATE kv SET v = v + 1');
        // each round's dead rows are vacuumed by the timer before the next round (however slow the machine)
        for (let waited = 0; (await vacuums()) === before; waited += 50) {
          if (waited > 20_000) throw new Error(`no vacuum of kv within 20 s of round ${round}`);
          await sleep(50);
        }
        sizes.push(await size(maintained));
      }
      const [kept, grown] = [await size(maintained), await size(control)];
      // every round rewrites every row: unvacuumed, 11 versions of each are kept; vacuumed, the space is reused
      expect(kept, `sizes ${sizes.join(', ')} against ${grown}`).toBeLessThan(grown / 2);
      expect(Math.max(...sizes.slice(5))).toBeLessThanOrEqual(Math.max(...sizes.slice(0, 5)) * 1.2);
      const stats = async (db: Database) =>
        (await db.query<{ vacuumed: boolean; analyzed: boolean }>(`SELECT last_vacuum IS NOT NULL AS vacuumed, last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE relname = 'kv'`))[0]!;
      expect(await stats(maintained)).toEqual({ vacuumed: true, analyzed: true });
      expect(await stats(control)).toEqual({ vacuumed: false, analyzed: false });
      const heapFetches = async (db: Database) => {
        await db.exec('SET enable_seqscan = off; SET enable_bitmapscan = off');
        const plan = await db.query<{ 'QUERY PLAN': Array<{ Plan: Record<string, unknown> }> }>('EXPLAIN (ANALYZE, FORMAT JSON) SELECT k FROM kv WHERE k < 5000');
        const node = plan[0]!['QUERY PLAN'][0]!.Plan;
        expect(node['Node Type']).toBe('Index Only Scan');
        return node['Heap Fetches'];
      };
      expect(await heapFetches(maintained)).toBe(0);
      expect(await heapFetches(control)).toBeGreaterThan(0);
    } finally {
      await maintained.close();
      await control.close();
    }
  }, 120_000);
});
