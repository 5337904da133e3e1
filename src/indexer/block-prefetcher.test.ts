/**
 * The fetch stage's bookkeeping, with a fetch whose answers the test releases by hand: which
 * blocks are asked for and when, what the writer is handed, and what a reset or a failure does.
 * (The stage against a real node: test/indexer/remote-node.test.ts and the other indexer tests.)
 */
import { describe, expect, it } from 'vitest';
import { BlockPrefetcher } from './block-prefetcher.js';
import type { FetchedBlock } from './transform.js';

/** A fetch that answers only when told to; each answer is a stand-in block carrying its number. */
function manualFetch() {
  const waiting = new Map<bigint, { resolve: (b: FetchedBlock) => void; reject: (e: unknown) => void; signal: AbortSignal }>();
  const asked: bigint[] = [];
  return {
    asked,
    fetch: (block: bigint, signal: AbortSignal) =>
      new Promise<FetchedBlock>((resolve, reject) => {
        asked.push(block);
        waiting.set(block, { resolve, reject, signal });
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
    answer(...blocks: bigint[]) {
      for (const n of blocks) waiting.get(n)!.resolve({ number: n } as unknown as FetchedBlock);
    },
    fail(block: bigint, error: Error) {
      waiting.get(block)!.reject(error);
    },
    aborted: (block: bigint) => waiting.get(block)!.signal.aborted,
  };
}

const numbers = (blocks: FetchedBlock[]) => blocks.map((b) => (b as unknown as { number: bigint }).number);
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('BlockPrefetcher', () => {
  it('asks in ascending order, at most `inFlight` at once and `window` ahead, and hands over contiguous runs in order', async () => {
    const node = manualFetch();
    const prefetcher = new BlockPrefetcher({ fetch: node.fetch, inFlight: () => 3, window: () => 5 }, new AbortController().signal);
    const first = prefetcher.take(10n, 100n, 2, 4);
    expect(node.asked).toEqual([10n, 11n, 12n]);
    // answers out of order: 12 frees a slot (13 is asked), but 10 is what the writer needs
    node.answer(12n);
    await tick();
    expect(node.asked).toEqual([10n, 11n, 12n, 13n]);
    node.answer(13n);
    await tick();
    expect(node.asked).toEqual([10n, 11n, 12n, 13n, 14n]);
    // the window (5 blocks from 10) ends at 14: a free slot asks nothing more until the writer takes
    node.answer(14n);
    await tick();
    expect(node.asked).toEqual([10n, 11n, 12n, 13n, 14n]);
    node.answer(10n, 11n);
    // as many as are ready, up to `most`
    expect(numbers(await first)).toEqual([10n, 11n, 12n, 13n]);
    // taking moved the window (14..18): 15..17, within 3 in flight
    expect(node.asked).toEqual([10n, 11n, 12n, 13n, 14n, 15n, 16n, 17n]);
    node.answer(14n, 15n);
    await tick();
    expect(numbers(await prefetcher.take(14n, 100n, 2, 4))).toEqual([14n, 15n]);
  });

  it('waits for at least `least` blocks, or fewer where the head comes first, and never asks beyond the head', async () => {
    const node = manualFetch();
    const prefetcher = new BlockPrefetcher({ fetch: node.fetch, inFlight: () => 10, window: () => 10 }, new AbortController().signal);
    const taken = prefetcher.take(0n, 2n, 5, 10);
    expect(node.asked).toEqual([0n, 1n, 2n]);
    node.answer(0n, 1n);
    await tick();
    let settled = false;
    void taken.then(() => (settled = true));
    await tick();
    expect(settled).toBe(false);
    node.answer(2n);
    expect(numbers(await taken)).toEqual([0n, 1n, 2n]);
    // a higher head extends what is asked for
    const more = prefetcher.take(3n, 4n, 1, 10);
    expect(node.asked).toEqual([0n, 1n, 2n, 3n, 4n]);
    node.answer(3n);
    expect(numbers(await more)).toEqual([3n]);
  });

  it('throws a failed fetch when the writer reaches its block, not before, and a reset aborts what is in flight', async () => {
    const node = manualFetch();
    const prefetcher = new BlockPrefetcher({ fetch: node.fetch, inFlight: () => 4, window: () => 8 }, new AbortController().signal);
    const taken = prefetcher.take(0n, 100n, 1, 2);
    node.fail(2n, new Error('node fault at 2'));
    node.answer(0n, 1n);
    expect(numbers(await taken)).toEqual([0n, 1n]);
    await expect(prefetcher.take(2n, 100n, 1, 2)).rejects.toThrow('node fault at 2');
    prefetcher.reset();
    expect(node.aborted(3n)).toBe(true);
    // after a reset (or from another block) everything is asked for again
    const again = prefetcher.take(2n, 100n, 1, 1);
    expect(node.asked.slice(-4)).toEqual([2n, 3n, 4n, 5n]);
    node.answer(...node.asked.slice(-4));
    expect(numbers(await again)).toEqual([2n]);
  });

  it('a stop ends a take that waits', async () => {
    const node = manualFetch();
    const stop = new AbortController();
    const prefetcher = new BlockPrefetcher({ fetch: node.fetch, inFlight: () => 1, window: () => 1 }, stop.signal);
    const taken = prefetcher.take(0n, 10n, 1, 1);
    stop.abort(new Error('stopping'));
    await expect(taken).rejects.toThrow('stopping');
  });
});
