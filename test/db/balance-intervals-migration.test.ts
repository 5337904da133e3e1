/**
 * Migration 023 turns the per-block history that 015 kept into intervals and makes the live
 * rows' blocks exact: an upgraded index answers at every past block what it answered before.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { holdersPage } from '../../src/db/queries/holders.js';
import { balanceAt } from '../../src/db/queries/balance-history.js';
import type { Hex } from '../../src/db/rows.js';
import { availableEngines, databaseBefore } from '../support/databases.js';
import { addressOf } from '../support/seed.js';

const CHAIN = 7;
const TOKEN = addressOf(0, 'intervals-token');
const [A, B, C] = [1, 2, 3].map((i) => addressOf(i, 'intervals-holder'));
/** balance_history as 015 kept it: holder, block, value after the block */
const HISTORY: Array<[Hex, number, bigint]> = [
  [A!, 2, 5n], [A!, 4, 8n], [A!, 6, 0n],
  [B!, 3, 3n],
  [C!, 1, 7n], [C!, 5, 2n ** 255n],
];
const TIP = 7;

/** The old reading of the history: each holder's latest row at or below `block`. */
function expectedAt(block: number): Array<[string, string]> {
  const latest = new Map<Hex, bigint>();
  for (const [holder, at, value] of HISTORY) if (at <= block) latest.set(holder, value);
  return [...latest].filter(([, v]) => v > 0n).map(([h, v]) => [h, v.toString()] as [string, string]).sort();
}

describe.each(await availableEngines())('migration 023 (balance intervals) on %s', (engine) => {
  const opened: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const close of opened) await close();
  });

  it('answers at every past block as the per-block history did', async () => {
    const { db, close } = await databaseBefore(engine, '023_balance_intervals');
    opened.push(close);
    const bytes = (hex: string) => Buffer.from(hex.slice(2), 'hex');
    await db.query('INSERT INTO chains (chain_id, indexed_block, history_from) VALUES ($1, $2, 1)', [CHAIN, TIP]);
    await db.query(`INSERT INTO tokens (chain_id, address, type, first_block) VALUES ($1, $2, 'ERC-20', 1)`, [CHAIN, bytes(TOKEN)]);
    for (const [holder, block, value] of HISTORY) {
      await db.query('INSERT INTO balance_history (chain_id, token, holder, token_id, block_number, value) VALUES ($1, $2, $3, NULL, $4, $5)', [
        CHAIN, bytes(TOKEN), bytes(holder), block, value.toString(),
      ]);
    }
    // before 023 a live row carried the block of the batch that last wrote it
    for (const holder of [A!, B!, C!]) {
      const last = HISTORY.filter(([h]) => h === holder).at(-1)!;
      await db.query('INSERT INTO token_balances (chain_id, token, holder, token_id, value, block_number) VALUES ($1, $2, $3, NULL, $4, $5)', [
        CHAIN, bytes(TOKEN), bytes(holder), last[2].toString(), TIP,
      ]);
    }
    await migrate(db);
    for (let block = 1; block <= TIP; block++) {
      const page = await holdersPage(db, { chainId: CHAIN, token: TOKEN, after: null, limit: 10, source: { kind: 'past', block: BigInt(block) } });
      expect(page.holders.map((h) => [h.address.hash, h.value.toString()]).sort(), `at ${block}`).toEqual(expectedAt(block));
      for (const holder of [A!, B!, C!]) {
        const expected = expectedAt(block).find(([h]) => h === holder)?.[1] ?? '0';
        expect((await balanceAt(db, CHAIN, TOKEN, holder, null, BigInt(block))).toString(), `${holder} at ${block}`).toBe(expected);
      }
    }
    const live = await db.query<{ holder: string; block_number: string }>(
      "SELECT '0x' || encode(holder, 'hex') AS holder, block_number::text FROM token_balances ORDER BY holder",
    );
    expect(live.map((r) => [r.holder, r.block_number])).toEqual([[A, '6'], [B, '3'], [C, '5']].sort());
  });
});
