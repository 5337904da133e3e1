/**
 * Migration 030 adds the page indexes of one ERC-1155 id's holders (live and past) to the default partitions. A
 * chain that had already handed over (its own partitions, every index copied) gets the copy in
 * the migration and stays 'indexed'; a chain still backfilling gets it at its hand-over, with the
 * rest. (That the per-id pages are read through the index: test/api/explain.test.ts.)
 */
import { afterAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { finishBackfill, partitionState, startBackfill } from '../../src/db/chain-partitions.js';
import { holdersPage } from '../../src/db/queries/holders.js';
import { availableEngines, databaseBefore, indexesOn } from '../support/databases.js';
import { addressOf } from '../support/seed.js';

const HANDED_OVER = 11;
const BACKFILLING = 12;
const TOKEN = addressOf(0, 'by-id-token');
const HOLDERS = [1, 2, 3].map((i) => addressOf(i, 'by-id-holder'));
const bytes = (hex: string) => Buffer.from(hex.slice(2), 'hex');

describe.each(await availableEngines())('migration 030 (holders of one token id) on %s', (engine) => {
  const opened: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const close of opened) await close();
  });

  it('gives a chain already handed over its copy at once, and one still backfilling at its hand-over', async () => {
    const { db, close } = await databaseBefore(engine, '030_holders_by_token_id');
    opened.push(close);
    for (const chainId of [HANDED_OVER, BACKFILLING]) {
      await db.query('INSERT INTO chains (chain_id, indexed_block) VALUES ($1, 5)', [chainId]);
      await db.query(`INSERT INTO tokens (chain_id, address, type, first_block) VALUES ($1, $2, 'ERC-1155', 1)`, [chainId, bytes(TOKEN)]);
      expect(await startBackfill(db, chainId)).toBe('backfilling');
      // id 7: holders 0, 1 and 2 with 30, 20 and 10; id 8: holder 0 alone
      await db.query(
        `INSERT INTO token_balances (chain_id, token, holder, token_id, value, block_number)
         VALUES ($1, $2, $3, 7, 30, 1), ($1, $2, $4, 7, 20, 1), ($1, $2, $5, 7, 10, 1), ($1, $2, $3, 8, 99, 1)`,
        [chainId, bytes(TOKEN), ...HOLDERS.map(bytes)],
      );
    }
    await finishBackfill(db, HANDED_OVER);
    expect(await partitionState(db, HANDED_OVER)).toBe('indexed');

    await migrate(db);
    expect(await indexesOn(db, 'token_balances_default')).toContain('token_balances_by_id');
    expect(await indexesOn(db, `token_balances_${HANDED_OVER}`)).toContain(`token_balances_${HANDED_OVER}_by_id`);
    expect(await indexesOn(db, `balance_intervals_${HANDED_OVER}`)).toContain(`balance_intervals_${HANDED_OVER}_by_id`);
    expect(await partitionState(db, HANDED_OVER)).toBe('indexed');
    expect(await indexesOn(db, `token_balances_${BACKFILLING}`)).not.toContain(`token_balances_${BACKFILLING}_by_id`);
    expect(await partitionState(db, BACKFILLING)).toBe('backfilling');
    await finishBackfill(db, BACKFILLING);
    expect(await indexesOn(db, `token_balances_${BACKFILLING}`)).toContain(`token_balances_${BACKFILLING}_by_id`);
    expect(await indexesOn(db, `balance_intervals_${BACKFILLING}`)).toContain(`balance_intervals_${BACKFILLING}_by_id`);
    expect(await partitionState(db, BACKFILLING)).toBe('indexed');

    for (const chainId of [HANDED_OVER, BACKFILLING]) {
      const page = await holdersPage(db, { chainId, token: TOKEN, instance: 7n, after: null, limit: 2 });
      expect(page.holders.map((h) => [h.address.hash, h.tokenId, h.value])).toEqual([[HOLDERS[0], 7n, 30n], [HOLDERS[1], 7n, 20n]]);
      const next = await holdersPage(db, { chainId, token: TOKEN, instance: 7n, after: { value: 20n, holder: HOLDERS[1]! }, limit: 2 });
      expect(next.holders.map((h) => [h.address.hash, h.value])).toEqual([[HOLDERS[2], 10n]]);
    }
  });
});
