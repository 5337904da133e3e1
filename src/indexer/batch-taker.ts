/**
 * How much the pipeline takes at once: the blocks asked of the node ahead of the writer, and
 * the range each batch covers, aimed at a steady number of transfers per transaction.
 */
import type { ChainConfig } from '../config/config.js';
import type { BlockPrefetcher } from './block-prefetcher.js';
import type { Logger } from './logger.js';
import { transformBatch, type DigestedBlock, type IndexBatch, type TransformOptions } from './transform.js';

export interface BatchSizeOptions {
  /**
   * blocks per batch: the range size aimed at is adapted between these bounds to hold about
   * `targetTransfers` (by default 10, the chain's `maxBlocksPerRange` and `transfersPerRange`);
   * a batch is the blocks fetched by the time the writer takes it, at least the lower bound (or
   * to the head) and at most the size aimed at
   */
  minBatchBlocks?: number;
  maxBatchBlocks?: number;
  targetTransfers?: number;
  /** how often a batch still waiting for its blocks says so (default 15 s) */
  waitingLogMs?: number;
}

export class BatchTaker {
  /** the range size aimed at */
  private batchBlocks: number;

  constructor(
    private readonly chain: ChainConfig,
    private readonly logger: Logger,
    private readonly options: BatchSizeOptions,
  ) {
    this.batchBlocks = this.minBatchBlocks;
  }

  private get minBatchBlocks(): number {
    return Math.min(this.options.minBatchBlocks ?? 10, this.maxBatchBlocks);
  }

  private get maxBatchBlocks(): number {
    return this.options.maxBatchBlocks ?? this.chain.maxBlocksPerRange;
  }

  /**
   * Blocks asked for at once: enough for every request slot of the RPC budget to carry a full
   * batch (a block, its receipts and its traces are three calls), twice over, so that a full
   * batch is queued for each slot as it frees. Fewer leave slots idle while each exchange waits
   * out the node's latency; more only queue at the budget.
   */
  get blocksInFlight(): number {
    return 2 * this.chain.rpcConcurrency * Math.max(1, Math.floor(this.chain.rpcBatchSize / 3));
  }

  /**
   * Blocks fetched or being fetched ahead of the writer: a whole range plus the blocks in
   * flight, so the next range is on its way while one is written. This bounds the memory the
   * fetched blocks hold while they wait for the writer.
   */
  get fetchWindow(): number {
    return this.batchBlocks + this.blocksInFlight;
  }

  /**
   * The batch starting at `from`: the blocks fetched ahead of it, at least `minBatchBlocks` (or
   * to the head) and as many more as are ready, up to the range size aimed at; or, with
   * `through`, the blocks up to that one.
   */
  async take(prefetcher: BlockPrefetcher<DigestedBlock>, from: bigint, head: bigint, transform: TransformOptions, through?: bigint): Promise<IndexBatch> {
    // a slow or rate-capped node can take minutes for a range: say what is being waited for,
    // so a silent log is never the only sign of life
    const started = Date.now();
    const waiting = setInterval(() => {
      this.logger.info(
        { chainId: this.chain.chainId, from: from.toString(), head: head.toString(), fetched: prefetcher.readyFrom(from), waitedS: Math.round((Date.now() - started) / 1000) },
        'waiting for blocks from the node',
      );
    }, this.options.waitingLogMs ?? 15_000);
    try {
      // a batch to end at `through` exactly: the fetch window (sized by batchBlocks) must hold it
      const exactly = through === undefined ? null : Number(through - from + 1n);
      if (exactly !== null) this.batchBlocks = Math.max(this.batchBlocks, exactly);
      const blocks = await prefetcher.take(from, through ?? head, exactly ?? this.minBatchBlocks, exactly ?? this.batchBlocks);
      return transformBatch(blocks, transform);
    } finally {
      clearInterval(waiting);
    }
  }

  /** After a batch is written: the next ranges aimed at a steady number of transfers per transaction. */
  written(batch: IndexBatch): void {
    const target = this.options.targetTransfers ?? this.chain.transfersPerRange;
    const blocks = batch.blocks.length;
    const ideal = batch.transfers === 0 ? blocks * 2 : Math.round((blocks * target) / batch.transfers);
    this.batchBlocks = Math.max(this.minBatchBlocks, Math.min(this.maxBatchBlocks, ideal));
  }
}
