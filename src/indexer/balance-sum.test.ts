import { describe, expect, it } from 'vitest';
import { BalanceSum } from './balance-sum.js';
import { ZERO_ADDRESS } from '../evm/hex.js';
import type { Hex } from '../db/rows.js';

const T = '0x00000000000000000000000000000000000000aa' as Hex;
const A = '0x00000000000000000000000000000000000000a1' as Hex;
const B = '0x00000000000000000000000000000000000000b2' as Hex;

describe('BalanceSum', () => {
  it('sums per key, keeps the last block, and each block\'s sum once a key changes in a second block', () => {
    const sum = new BalanceSum();
    sum.add(T, A, null, 5n, 10n);
    sum.add(T, A, null, 2n, 10n); // same block: merged into it
    sum.add(T, B, null, 9n, 10n);
    sum.add(T, A, null, -3n, 12n);
    sum.add(T, A, null, 1n, 12n);
    sum.add(T, A, null, 4n, 15n);
    const [a, b] = sum.changed();
    expect(a).toEqual({ token: T, holder: A, tokenId: null, delta: 9n, blockNumber: 15n, steps: [
      { blockNumber: 10n, delta: 7n },
      { blockNumber: 12n, delta: -2n },
      { blockNumber: 15n, delta: 4n },
    ] });
    expect(b).toEqual({ token: T, holder: B, tokenId: null, delta: 9n, blockNumber: 10n, steps: null });
  });

  it('keeps a key whose blocks net to zero for the history, not among the net deltas; never the zero address; ids apart', () => {
    const sum = BalanceSum.of([
      { token: T, holder: A, tokenId: null, delta: 7n, blockNumber: 1n },
      { token: T, holder: ZERO_ADDRESS, tokenId: null, delta: -7n, blockNumber: 1n },
      { token: T, holder: A, tokenId: null, delta: -7n, blockNumber: 2n },
      { token: T, holder: B, tokenId: 1n, delta: 1n, blockNumber: 2n },
      { token: T, holder: B, tokenId: 2n, delta: 1n, blockNumber: 2n },
      { token: T, holder: B, tokenId: 2n, delta: -1n, blockNumber: 2n },
    ]);
    expect(sum.changed().map((c) => [c.holder, c.tokenId, c.delta, c.steps?.length ?? 1])).toEqual([
      [A, null, 0n, 2],
      [B, 1n, 1n, 1],
    ]);
    expect(sum.nonZero().map((c) => [c.holder, c.tokenId, c.delta])).toEqual([[B, 1n, 1n]]);
  });
});
