import { describe, expect, it } from 'vitest';
import type { Hex } from '../db/rows.js';
import { uncleRewards } from './uncle-rewards.js';

const ETH = 10n ** 18n;
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex;
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Hex;

describe('uncleRewards', () => {
  it('one uncle of depth 2 under the 5 ETH base (block 508,110 as its trace records it)', () => {
    const r = uncleRewards(508_110n, [hash(1)], [{ hash: hash(1), number: 508_108n, miner: addr(1) }], [
      { type: 'validator', reward: 5_156_250_000_000_000_000n, address: addr(1) },
      { type: 'uncle', reward: 3_750_000_000_000_000_000n, address: addr(1) },
    ]);
    expect(r).toEqual({ uncles: [{ miner: addr(1), position: 0, reward: 3_750_000_000_000_000_000n }], inclusionReward: 156_250_000_000_000_000n });
  });

  it('two uncles of one miner arrive as one entry: split by depth under the 3 ETH base', () => {
    const base = 3n * ETH;
    const entry = (base * 7n) / 8n + (base * 5n) / 8n;
    const r = uncleRewards(
      100n,
      [hash(2), hash(3)],
      [
        { hash: hash(3), number: 97n, miner: addr(7) },
        { hash: hash(2), number: 99n, miner: addr(7) },
      ],
      [{ type: 'uncle', reward: entry, address: addr(7) }],
    );
    expect(r.uncles).toEqual([
      { miner: addr(7), position: 0, reward: (base * 7n) / 8n },
      { miner: addr(7), position: 1, reward: (base * 5n) / 8n },
    ]);
    expect(r.inclusionReward).toBe((2n * base) / 32n);
  });

  it('without uncle entries (a node without traces) every amount is 0; without uncles nothing', () => {
    expect(uncleRewards(5n, [hash(4)], [{ hash: hash(4), number: 4n, miner: addr(2) }], [])).toEqual({
      uncles: [{ miner: addr(2), position: 0, reward: 0n }],
      inclusionReward: 0n,
    });
    expect(uncleRewards(5n, [], [], [{ type: 'validator', reward: 1n, address: addr(2) }])).toEqual({ uncles: [], inclusionReward: 0n });
  });
});
