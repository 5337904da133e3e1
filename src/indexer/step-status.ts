import type { Database } from '../db/client.js';
import { isDatabaseFault, isDiskFull } from '../db/unavailable.js';
import { clearIndexerFailure, recordIndexerFailure, type IndexerFailure } from '../db/queries/indexer-status.js';
import { RpcError } from '../rpc/errors.js';
import { BlockSealError } from '../evm/block-producer.js';

/**
 * What one chain's indexer tells every API process, through the database, of its last step:
 * failing (and why: the database, the node, or our own fault) or well. The database may be what
 * fails: then nothing is recorded, and /health sees the heartbeat stop.
 */
/**
 * How often a working indexer clears a failure it did not record itself: a frozen writer that
 * resumed after another took the chain over records its last failed step, and nothing else
 * would clear it (upgrade review: /health 503 on every replica for 7.5 min, until a restart).
 */
export const FOREIGN_FAILURE_CHECK_MS = 10_000;

/** What /health says a failed step failed on. */
function failureOf(error: unknown): IndexerFailure {
  if (isDiskFull(error)) return 'disk-full';
  if (isDatabaseFault(error)) return 'database';
  if (error instanceof RpcError) return 'rpc';
  if (error instanceof BlockSealError) return 'settings';
  return 'internal';
}

export class StepStatus {
  /** whether the database may say this chain is failing (unknown at start: a previous run may have said so) */
  private failureRecorded = true;
  private clearedAt = 0;

  constructor(
    private readonly db: Database,
    private readonly chainId: number,
  ) {}

  async failed(error: unknown): Promise<void> {
    const failure = failureOf(error);
    // set first: a write whose answer was lost may still have been committed
    this.failureRecorded = true;
    try {
      await recordIndexerFailure(this.db, this.chainId, failure);
    } catch {
      // the caller has logged the error already
    }
  }

  /**
   * Clears a recorded failure once a step has gone through; while all is well, costs one
   * statement that writes nothing every FOREIGN_FAILURE_CHECK_MS, for a failure another process
   * recorded.
   */
  async succeeded(now = Date.now()): Promise<void> {
    if (!this.failureRecorded && now - this.clearedAt < FOREIGN_FAILURE_CHECK_MS) return;
    await clearIndexerFailure(this.db, this.chainId);
    this.failureRecorded = false;
    this.clearedAt = now;
  }
}
