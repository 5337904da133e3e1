/**
 * The fetch stage: blocks requested one by one in ascending order, ahead of the writer, as many
 * at once as the chain's RPC budget can carry, and handed to the writer as contiguous runs.
 *
 * Blocks, not ranges, are the unit of fetching so that the budget stays busy whatever the writer
 * does: as soon as an answer frees room, the next blocks are asked for, while the writer commits
 * what came before. Ranges fetched whole (the earlier design) left the budget idle whenever the
 * next range had not been planned yet, which on a node 50 ms away cost half the rate
 * (BENCHMARKS.md, "remote"). The writer takes whatever contiguous blocks are ready — at least a
 * few, at most a range — so a writer faster than the node commits smaller ranges as they come
 * instead of waiting for a whole range, and a slower one finds full ranges waiting.
 *
 * Calls of blocks asked for in the same tick travel in the same JSON-RPC batches (the transport
 * batches by tick and signal; every fetch of one generation shares one signal).
 */
import { setMaxListeners } from 'node:events';
export interface BlockPrefetcherOptions<T> {
  /** one block with everything the transform needs; rejects when `signal` aborts */
  fetch: (block: bigint, signal: AbortSignal) => Promise<T>;
  /** blocks asked for at once (read at each top-up: it follows the budget and the trace support) */
  inFlight: () => number;
  /** most blocks fetched or being fetched beyond the writer's next block: bounds the memory held */
  window: () => number;
}

interface Slot<T> {
  block?: T;
  error?: unknown;
}

/** Everything asked for since the last reset: dropped and aborted together. */
interface Generation<T> {
  controller: AbortController;
  signal: AbortSignal;
  /** the writer's next block: the first one held */
  first: bigint;
  /** the next block to ask for */
  next: bigint;
  /** the last block to ask for (the head the writer last planned with) */
  last: bigint;
  pending: number;
  readonly slots: Map<bigint, Slot<T>>;
}

export class BlockPrefetcher<T> {
  private generation: Generation<T> | null = null;
  /** resolved when any fetch settles: what a waiting take() wakes on */
  private settled: { promise: Promise<void>; resolve: () => void } = newSignal();

  constructor(
    private readonly options: BlockPrefetcherOptions<T>,
    /** the run's signal: stopping ends every fetch */
    private readonly stop: AbortSignal,
  ) {}

  /**
   * The contiguous blocks from `from` on: at least `least` of them (fewer only where `head`
   * comes first), and as many more as are ready now, up to `most`. A fetch that failed throws
   * here when the writer reaches its block, and the caller resets.
   */
  async take(from: bigint, head: bigint, least: number, most: number): Promise<T[]> {
    let generation = this.generation;
    if (generation === null || generation.first !== from) generation = this.restart(from);
    // a lower head (a shorter branch) does not drop blocks already held: the link check and
    // BlockNotAvailableError sort those out, as with any block fetched before a reorg
    if (head > generation.last) generation.last = head;
    const available = head - from + 1n;
    const wanted = BigInt(Math.max(1, least)) < available ? BigInt(Math.max(1, least)) : available;
    const cap = BigInt(Math.max(1, most)) < available ? BigInt(Math.max(1, most)) : available;
    this.topUp(generation);
    for (;;) {
      if (generation.signal.aborted) throw generation.signal.reason ?? new Error('aborted');
      let ready = 0n;
      while (ready < cap) {
        const slot = generation.slots.get(from + ready);
        if (slot?.error !== undefined && ready < wanted) throw slot.error;
        if (slot?.block === undefined) break;
        ready++;
      }
      if (ready >= wanted) return this.hand(generation, from, ready);
      const { promise } = this.settled;
      await promise;
      if (this.generation !== generation) throw new Error('block prefetcher reset while a take waited');
    }
  }

  /** How many contiguous blocks from `from` on are fetched and waiting (0 when another range is held). */
  readyFrom(from: bigint): number {
    const generation = this.generation;
    if (generation === null) return 0;
    let ready = 0;
    while (generation.slots.get(from + BigInt(ready))?.block !== undefined) ready++;
    return ready;
  }

  /** Drops every block held and aborts every fetch (a reorg, a failure, a replanned head). */
  reset(): void {
    this.generation?.controller.abort(new Error('prefetch reset'));
    this.generation = null;
  }

  private restart(from: bigint): Generation<T> {
    this.reset();
    const controller = new AbortController();
    const signal = AbortSignal.any([this.stop, controller.signal]);
    // every fetch of the generation listens on this one signal
    setMaxListeners(0, signal);
    // a take waiting for blocks that will never be asked for (stopping) wakes and throws
    signal.addEventListener('abort', () => this.wake(), { once: true });
    this.generation = { controller, signal, first: from, next: from, last: from - 1n, pending: 0, slots: new Map() };
    return this.generation;
  }

  private hand(generation: Generation<T>, from: bigint, count: bigint): T[] {
    const blocks: T[] = [];
    for (let n = from; n < from + count; n++) {
      blocks.push(generation.slots.get(n)!.block!);
      generation.slots.delete(n);
    }
    generation.first = from + count;
    this.topUp(generation);
    return blocks;
  }

  /** Asks for the next blocks while the budget and the window allow. */
  private topUp(generation: Generation<T>): void {
    const inFlight = Math.max(1, this.options.inFlight());
    const limit = generation.first + BigInt(Math.max(1, this.options.window()));
    while (generation.pending < inFlight && generation.next <= generation.last && generation.next < limit && !generation.signal.aborted) {
      const block = generation.next++;
      const slot: Slot<T> = {};
      generation.slots.set(block, slot);
      generation.pending++;
      this.options.fetch(block, generation.signal).then(
        (fetched) => this.done(generation, () => (slot.block = fetched)),
        (error: unknown) => this.done(generation, () => (slot.error = error ?? new Error(`fetching block ${block} failed`))),
      );
    }
  }

  private done(generation: Generation<T>, record: () => void): void {
    generation.pending--;
    if (this.generation !== generation) return;
    record();
    this.topUp(generation);
    this.wake();
  }

  private wake(): void {
    const { resolve } = this.settled;
    this.settled = newSignal();
    resolve();
  }
}

function newSignal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
