import type { Database } from '../db/client.js';
import { historyFrom, pruneHistoryBelow } from '../db/queries/write-history.js';
import type { Logger } from './logger.js';

/**
 * Prunes history below the horizon in one transaction, unless it already starts there. Returns
 * where the kept history starts before and after (above the horizon when an earlier, higher
 * horizon pruned it: pruned history does not come back).
 */
export async function pruneHistory(db: Database, chainId: number, horizon: bigint): Promise<{ before: bigint | null; after: bigint | null }> {
  return db.transaction(async (tx) => {
    const before = await historyFrom(tx, chainId);
    if (before !== null && before >= horizon) return { before, after: before };
    await pruneHistoryBelow(tx, chainId, horizon);
    return { before, after: horizon };
  });
}

/**
 * The operator's history horizon (`--history-from-block`) for one chain's pipeline: once the
 * index reaches it, the history below it is pruned, once per process.
 */
export class HistoryHorizon {
  private pruned = false;
  private aboveHeadWarned = false;

  constructor(
    private readonly db: Database,
    private readonly chainId: number,
    /** null: keep everything */
    private readonly horizon: bigint | null,
    private readonly logger: Logger,
  ) {}

  async afterBatch(indexed: bigint, head: bigint): Promise<void> {
    const horizon = this.horizon;
    if (horizon === null || this.pruned) return;
    const label = { chainId: this.chainId };
    if (horizon > head && !this.aboveHeadWarned) {
      // likely a typo; said once, as it is not wrong (the history is pruned when the chain gets there)
      this.aboveHeadWarned = true;
      this.logger.warn({ ...label, horizon: horizon.toString(), head: head.toString() }, 'history horizon (--history-from-block) is above the node\'s head: history is kept until the chain reaches it');
    }
    if (indexed < horizon) return;
    const { before, after } = await pruneHistory(this.db, this.chainId, horizon);
    this.pruned = true;
    if (before === after && after !== null && after > horizon) {
      // a lower horizon than before: what the higher one pruned stays gone
      this.logger.warn({ ...label, horizon: horizon.toString(), historyFrom: after.toString() }, 'balance history starts above the horizon: an earlier horizon pruned it');
    } else if (before !== after) {
      this.logger.info({ ...label, below: horizon.toString() }, 'balance history below the horizon pruned');
    }
  }
}
