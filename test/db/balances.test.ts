import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { findToken } from '../../src/db/queries/holders.js';
import {
  applyBalanceDeltas,
  applyBlockChanges,
  recordBalanceChanges,
  takeBalanceChangesAbove,
} from '../../src/db/queries/write-balances.js';
import { BalanceSum } from '../../src/indexer/balance-sum.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { addressOf, seedChainTokens } from '../support/seed.js';

const CHAIN = 3;
const FT = addressOf(1, 'ft');
const MT = addressOf(2, 'mt');
/** a token of its own for the history case (no tokens row needed: the balance write only updates one that exists) */
const HT = addressOf(3, 'ht');
const [A, B, C, D, E] = [addressOf(1), addressOf(2), addressOf(3), addressOf(4), addressOf(5)];

describe.each(await availableEngines())('balance deltas on %s', (engine) => {
  let db: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await freshDatabase(engine));
    await seedChainTokens(db, CHAIN, [
      { address: FT, type: 'ERC-20' },
      { address: MT, type: 'ERC-1155' },
    ]);
  });
  afterAll(() => drop?.());

  const balances = async (token: string) =>
    db.query<{ holder: string; token_id: string | null; value: string }>(
      "SELECT '0x' || encode(holder, 'hex') AS holder, token_id::text, value::text FROM token_balances WHERE token = decode($1, 'hex') ORDER BY holder, token_id",
      [token.slice(2)],
    );

  it('keeps each replaced value as an interval in the same statement, also for a balance that nets to zero over the batch', async () => {
    // D gets 3 then 4 more; E (no earlier row) gets 7 and sends it all on within the batch,
    // so its batch sum is 0: its intervals still need its row's value
    const changes = [
      { token: HT, holder: D, tokenId: null, delta: 3n, blockNumber: 10n },
      { token: HT, holder: E, tokenId: null, delta: 7n, blockNumber: 10n },
      { token: HT, holder: E, tokenId: null, delta: -7n, blockNumber: 11n },
      { token: HT, holder: D, tokenId: null, delta: 4n, blockNumber: 12n },
    ];
    expect(await applyBlockChanges(db, CHAIN, BalanceSum.of(changes).changed())).toEqual([]);
    // the expected history: each holder's running sum of its changes, block by block; a value
    // lasts from its block to the holder's next change, the last one is the live row
    const running = new Map<string, { value: bigint; block: bigint }>();
    const intervals: string[][] = [];
    for (const c of changes) {
      const before = running.get(c.holder);
      if (before && before.value > 0n) intervals.push([c.holder, before.value.toString(), before.block.toString(), c.blockNumber.toString()]);
      running.set(c.holder, { value: (before?.value ?? 0n) + c.delta, block: c.blockNumber });
    }
    const kept = await db.query<{ holder: string; value: string; from_block: string; to_block: string }>(
      `SELECT '0x' || encode(holder, 'hex') AS holder, value::text, from_block::text, to_block::text FROM balance_intervals
       WHERE token = decode($1, 'hex') AND holder = ANY(ARRAY[decode($2, 'hex'), decode($3, 'hex')])`,
      [HT.slice(2), D.slice(2), E.slice(2)],
    );
    expect(kept.map((r) => [r.holder, r.value, r.from_block, r.to_block]).sort()).toEqual(intervals.sort());
    const live = await db.query<{ holder: string; value: string; block_number: string }>(
      "SELECT '0x' || encode(holder, 'hex') AS holder, value::text, block_number::text FROM token_balances WHERE token = decode($1, 'hex')",
      [HT.slice(2)],
    );
    expect(live.map((r) => [r.holder, r.value, r.block_number]).sort()).toEqual(
      [...running].map(([holder, v]) => [holder, v.value.toString(), v.block.toString()]).sort(),
    );
  });

  it('adds deltas, keeps holder counts, reports negatives, and undoes exactly', async () => {
    const big = 2n ** 255n;
    expect(await applyBalanceDeltas(db, CHAIN, 1n, [
      { token: FT, holder: A, tokenId: null, delta: big },
      { token: FT, holder: B, tokenId: null, delta: 5n },
    ])).toEqual([]);
    expect((await findToken(db, CHAIN, FT))!.holderCount).toBe(2n);
    const step2 = [
      { token: FT, holder: A, tokenId: null, delta: -big },
      { token: FT, holder: C, tokenId: null, delta: big },
      { token: FT, holder: B, tokenId: null, delta: -6n },
    ];
    await recordBalanceChanges(db, CHAIN, step2.map((d) => ({ ...d, blockNumber: 2n })));
    const negative = await applyBalanceDeltas(db, CHAIN, 2n, step2);
    expect(negative).toEqual([{ token: FT, holder: B, tokenId: null }]);
    expect((await findToken(db, CHAIN, FT))!.holderCount).toBe(1n);
    // roll block 2 back with the recorded deltas, negated
    const undo = await takeBalanceChangesAbove(db, CHAIN, 1n);
    await applyBalanceDeltas(db, CHAIN, 1n, undo.map((d) => ({ ...d, delta: -d.delta })));
    expect((await balances(FT)).filter((r) => r.value !== '0').map((r) => [r.holder, r.value]).sort()).toEqual(
      [[A, big.toString()], [B, '5']].sort(),
    );
    expect((await findToken(db, CHAIN, FT))!.holderCount).toBe(2n);
    expect(await takeBalanceChangesAbove(db, CHAIN, 1n)).toEqual([]);
  });

  it('ERC-1155 holder counts count addresses, not ids', async () => {
    await applyBalanceDeltas(db, CHAIN, 1n, [
      { token: MT, holder: A, tokenId: 1n, delta: 1n },
      { token: MT, holder: A, tokenId: 2n, delta: 1n },
      { token: MT, holder: B, tokenId: 2n, delta: 3n },
    ]);
    expect((await findToken(db, CHAIN, MT))!.holderCount).toBe(2n);
    await applyBalanceDeltas(db, CHAIN, 2n, [{ token: MT, holder: A, tokenId: 1n, delta: -1n }]);
    expect((await findToken(db, CHAIN, MT))!.holderCount).toBe(2n);
  });
});
