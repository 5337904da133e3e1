/**
 * The prototypes' synthetic chain, shaped like bench:index's: ERC-20 transfers over `tokens`
 * and `holders` in `blocks`, cut into `batches` as the indexer hands the writer: per batch, the
 * net change of each (token, holder) in each block. A fifth of the transfers mint, the rest move
 * half a holder's balance, so nothing goes negative. The same chain on every run (seeded).
 */
import type { BlockDelta } from '../../src/db/queries/write-balances.js';
import type { Hex } from '../../src/db/rows.js';

export interface ChainShape {
  tokens: number;
  holders: number;
  transfers: number;
  blocks: number;
  batches: number;
}

/** mulberry32 */
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const address = (n: number, prefix: string) => `0x${prefix}${n.toString(16).padStart(40 - prefix.length, '0')}` as Hex;

/** How a transfer picks one of `n` tokens or holders: uniformly, or skewed to the first (a few hot tokens and senders). */
export const uniform = (rnd: () => number, n: number) => Math.floor(rnd() * n);
export const skewed = (rnd: () => number, n: number) => Math.min(n - 1, Math.floor(rnd() ** 2.5 * n));

export function syntheticBatches(shape: ChainShape, pick: (rnd: () => number, n: number) => number = uniform): BlockDelta[][] {
  const rnd = random(42);
  const perBlock = Array.from({ length: shape.blocks }, () => new Map<string, BlockDelta>());
  const balance = new Map<string, bigint>();
  const change = (block: number, token: number, holder: number, delta: bigint) => {
    const key = `${token}:${holder}`;
    balance.set(key, (balance.get(key) ?? 0n) + delta);
    const entry = perBlock[block]!.get(key);
    if (entry) entry.delta += delta;
    else perBlock[block]!.set(key, { token: address(token, 'aa'), holder: address(holder, 'bb'), tokenId: null, delta, blockNumber: BigInt(block + 1) });
  };
  for (let i = 0; i < shape.transfers; i++) {
    const block = Math.floor((i * shape.blocks) / shape.transfers);
    const token = pick(rnd, shape.tokens);
    const to = pick(rnd, shape.holders);
    const from = pick(rnd, shape.holders);
    const held = balance.get(`${token}:${from}`) ?? 0n;
    const mint = held === 0n || rnd() < 0.2;
    const value = mint ? BigInt(Math.floor(rnd() * 1e6) + 1) * 10n ** 12n : held / 2n + 1n;
    if (!mint) change(block, token, from, -value);
    change(block, token, to, value);
  }
  const batches: BlockDelta[][] = [];
  for (let k = 0; k < shape.batches; k++) {
    const slice = perBlock.slice(Math.floor((k * shape.blocks) / shape.batches), Math.floor(((k + 1) * shape.blocks) / shape.batches));
    batches.push(slice.flatMap((m) => [...m.values()].filter((d) => d.delta !== 0n)));
  }
  return batches;
}
