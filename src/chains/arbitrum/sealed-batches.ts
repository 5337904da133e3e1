/**
 * The Arbitrum kind's second background step: batch numbers from the child node's NodeInterface
 * for child blocks whose batch the parent follower has not seen (posted before
 * `parentStartBlock`, a legacy batch without message counts whose neighbours do not give its
 * range, or a follower that lags). Those blocks are "Sealed on rollup": batch known, commitment
 * transaction not.
 *
 * Each round takes the lowest child block no batch range holds, asks the node its batch, and
 * finds where that batch ends by an exponential then binary search with the same call (batch
 * numbers never decrease along the chain), so a batch costs about 2·log2(its length) calls. A
 * round makes at most `maxCallsPerRound` calls before starting no further search; everything it
 * learns is one upsert per batch, so a kill anywhere loses at most the search under way and a
 * restart asks again. The search for unheld blocks starts where the last one found none below
 * (reset by a parent-chain rollback), so a round reads only the recent ranges. Whether the node has a NodeInterface is found at the first call: a node
 * without one (plain EVM) ends the step with one info line.
 */
import type { Database } from '../../db/client.js';
import type { RpcClient } from '../../rpc/client.js';
import { sleep } from '../../rpc/backoff.js';
import type { Logger } from '../../indexer/logger.js';
import { findBatchContainingBlock, NoNodeInterfaceError } from './node-interface.js';
import { childBlockSpan, mergeSealedIntoParentBatches, firstUnsealedBlock, recordSealedBatch } from './store.js';

export interface SealedBatchFinderOptions {
  db: Database;
  chainId: number;
  child: RpcClient;
  logger: Logger;
  /** child block of the first message (the setting's `messagesToBlocksShift`): no batch holds a block below it */
  firstMessageBlock: bigint;
  pollIntervalMs: number;
  /** NodeInterface calls per round before no further search is started */
  maxCallsPerRound?: number;
}

export class SealedBatchFinder {
  private readonly maxCalls: number;
  private calls = 0;
  /**
   * Every child block below it is held by a batch range (in memory: a restart scans from the start
   * once). Ranges only go away in a parent-chain rollback, which calls `rangesDropped`.
   */
  private heldBelow: bigint | null = null;
  /** bumped by each rollback: a round that overlapped one does not move `heldBelow` */
  private generation = 0;

  constructor(private readonly options: SealedBatchFinderOptions) {
    this.maxCalls = options.maxCallsPerRound ?? 64;
  }

  private get label() {
    return { chainId: this.options.chainId, task: 'arbitrum-sealed-batches' };
  }

  /** Until aborted, or until the node turns out to have no NodeInterface. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const more = await this.round(signal);
        if (!more) await sleep(this.options.pollIntervalMs, signal);
      } catch (error) {
        if (signal.aborted) break;
        if (error instanceof NoNodeInterfaceError) {
          this.options.logger.info({ ...this.label, reason: error.message }, 'no NodeInterface on the child node: batch numbers of blocks whose batch was not seen on the parent chain stay unknown');
          return;
        }
        this.options.logger.error({ ...this.label, err: error instanceof Error ? error.message : String(error) }, 'NodeInterface step failed; retrying');
        await sleep(2_000, signal).catch(() => undefined);
      }
    }
  }

  /** The parent follower rolled batches back: blocks they held may be without a batch again. */
  rangesDropped(): void {
    this.generation++;
    this.heldBelow = null;
  }

  /** One round; true when the call budget ran out with blocks left to ask about. */
  async round(signal: AbortSignal): Promise<boolean> {
    const { db, chainId } = this.options;
    const generation = this.generation;
    this.calls = 0;
    await mergeSealedIntoParentBatches(db, chainId);
    const span = await childBlockSpan(db, chainId, this.options.firstMessageBlock);
    if (span === null) return false;
    while (this.calls < this.maxCalls) {
      const from = this.heldBelow !== null && this.heldBelow > span.from ? this.heldBelow : span.from;
      const gap = await firstUnsealedBlock(db, chainId, { from, to: span.to });
      // the ranges scanned are the ones at or after `from` only
      if (generation === this.generation) this.heldBelow = gap === null ? span.to + 1n : gap.block;
      if (gap === null) return false;
      const batch = await this.batchOf(gap.block, signal);
      // no batch holds it yet: nor any block above it
      if (batch === null) return false;
      const last = await this.lastBlockOf(batch, gap.block, gap.nextHeld === null ? span.to : gap.nextHeld - 1n, signal);
      await db.transaction((tx) => recordSealedBatch(tx, chainId, batch, gap.block, last));
      this.options.logger.debug({ ...this.label, batch: batch.toString(), firstBlock: gap.block.toString(), lastBlock: last.toString() }, 'sealed batch found');
    }
    return true;
  }

  private batchOf(block: bigint, signal: AbortSignal): Promise<bigint | null> {
    this.calls++;
    return findBatchContainingBlock(this.options.child, block, signal);
  }

  /** The last block in `[first, upTo]` of `batch`, which holds `first`. */
  private async lastBlockOf(batch: bigint, first: bigint, upTo: bigint, signal: AbortSignal): Promise<bigint> {
    let inBatch = first;
    // the lowest block known to be past the batch (upTo + 1 until one is found)
    let beyond = upTo + 1n;
    for (let step = 1n; inBatch < upTo && beyond > upTo; step *= 2n) {
      const probe = inBatch + step < upTo ? inBatch + step : upTo;
      if ((await this.batchOf(probe, signal)) === batch) inBatch = probe;
      else beyond = probe;
    }
    while (beyond - inBatch > 1n) {
      const middle: bigint = (inBatch + beyond) / 2n;
      if ((await this.batchOf(middle, signal)) === batch) inBatch = middle;
      else beyond = middle;
    }
    return inBatch;
  }
}
