import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { upsertTokens } from '../../src/db/queries/write-tokens.js';
import { findToken } from '../../src/db/queries/holders.js';
import {
  applyBalanceDeltas,
  recordBalanceChanges,
  takeBalanceChangesAbove,
} from '../../src/db/queries/write-balances.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { addressOf } from '../support/seed.js';

const CHAIN = 3;
const FT = addressOf(1, 'ft');
const MT = addressOf(2, 'mt');
const [A, B, C] = [addressOf(1), addressOf(2), addressOf(3)];

describe.each(await availableEngines())('balance deltas on %s', (engine) => {
  let db: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await freshDatabase(engine));
    await ensureChain(db, CHAIN);
    await upsertTokens(db, [
      { chainId: CHAIN, address: FT, type: 'ERC-20', name: null, symbol: null, decimals: null, totalSupply: null },
      { chainId: CHAIN, address: MT, type: 'ERC-1155', name: null, symbol: null, decimals: null, totalSupply: null },
    ]);
  });
  afterAll(() => drop?.());

  const balances = async (token: string) =>
    db.query<{ holder: string; token_id: string | null; value: string }>(
      "SELECT '0x' || encode(holder, 'hex') AS holder, token_id::text, value::text FROM token_balances WHERE token = decode($1, 'hex') ORDER BY holder, token_id",
      [token.slice(2)],
    );

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
