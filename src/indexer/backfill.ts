import type { Database } from '../db/client.js';
import { finishBackfill, startBackfill } from '../db/chain-partitions.js';
import type { Logger } from './reorg.js';

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
    private readonly logger: Logger,
  ) {}

  /** Starts (or carries on) a backfill: the chain's own partitions, made in one transaction if it has no rows yet. */
  async start(): Promise<boolean> {
    this.active = (await this.db.transaction((tx) => startBackfill(tx, this.chainId))) === 'backfilling';
    return this.active;
  }

  /** Before a batch ending at `to` is written: a batch a reorg could reach is the head-following path's. */
  async beforeBatch(to: bigint, head: bigint, reorgWindow: number): Promise<void> {
    if (to > head - BigInt(reorgWindow)) await this.finish();
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
}
