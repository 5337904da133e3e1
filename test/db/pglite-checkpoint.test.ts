/**
 * The embedded database checkpoints while it runs: PGlite is one PostgreSQL backend without a
 * checkpointer, and its WAL grew for as long as the process lived (soak review). Checked on
 * PostgreSQL's own control data (`pg_control_checkpoint()`), and on the WAL directory, which a
 * checkpointed database keeps bounded through rounds of writes.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglite } from '../../src/db/pglite.js';

describe('the embedded database checkpoints while it runs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'explorer-checkpoint-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
});
