import type { Database } from '../db/client.js';
import { finishBackfill, startBackfill } from '../db/chain-partitions.js';
import type { Logger } from './logger.js';

/**
 * The backfill stage of one chain's indexing (db/chain-partitions.ts): below the reorg window
 * the balances are written without their page indexes, which are built in bulk at the
 * hand-over to the head-following path. Whether a chain is backfilling is the catalog's to say,
 * so a run started after a kill at any moment carries on where that one was.
 */
export class Backfill {
  private active = false;

  constructor(
    private readonly db: Database,
    private readonly chainId: number,
    /** the blocks below the head a reorg could still reach (the chain's `reorgWindow`) */
    private readonly reorgWindow: number,
    private readonly logger: Logger,
  ) {}

  /** Whether batches are being written as the backfill's (before the hand-over). */
  get writing(): boolean {
    return this.active;
  }

  /** Starts (or carries on) a backfill: the chain's own partitions, made in one transaction if it has no rows yet. */
  async start(): Promise<boolean> {
    this.active = (await this.db.transaction((tx) => startBackfill(tx, this.chainId))) === 'backfilling';
    return this.active;
  }

  /** Before a batch from `from` is written: one that starts where a reorg could reach is the head-following path's. */
  async beforeBatch(from: bigint, head: bigint): Promise<void> {
    if (this.reachesWindow(from, head)) await this.finish();
  }

  /**
   * After a batch up to `to` is written: once the backfill has reached the reorg window, the
   * hand-over. The batch that crosses into the window is still the backfill's: its rows are
   * written without the page indexes (maintained row by row they cost the batch about twice,
   * BENCHMARKS.md), and no reorg is handled before the hand-over (a rollback finishes first).
   */
  async afterBatch(to: bigint, head: bigint): Promise<void> {
    if (this.reachesWindow(to, head)) await this.finish();
  }

  /**
   * The hand-over: the page indexes built in bulk, each committed on its own (a crash keeps
   * those built, and the next start builds the rest). Also before any rollback, and at the head.
   */
  async finish(): Promise<void> {
    if (!this.active) return;
    const started = Date.now();
    const label = { chainId: this.chainId };
    this.logger.info(label, 'backfill: building page indexes');
    await finishBackfill(this.db, this.chainId);
    this.active = false;
    this.logger.info({ ...label, ms: Date.now() - started }, 'backfill finished: page indexes built');
  }

  private reachesWindow(block: bigint, head: bigint): boolean {
    return block > head - BigInt(this.reorgWindow);
  }
}
