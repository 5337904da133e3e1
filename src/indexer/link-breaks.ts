import type { Hex } from '../db/rows.js';
import { InconsistentChainDataError } from '../rpc/errors.js';
import type { BlockRow } from '../db/model/block.js';
import type { Logger } from './logger.js';
import type { StepStatus } from './step-status.js';
import { BlockStreak } from './block-streak.js';

/** The longest wait between refetches of a link that stays broken. */
const MAX_WAIT_MS = 30_000;

/**
 * A fetched range whose blocks do not link up, not at its start (that is a reorg of our tip, for
 * the rollback) but inside it: the node reorganised while the range was fetched, and fetching it
 * again heals it. A node whose chain contradicts itself for good (a devnet restored from a state
 * file with a new genesis, a balancer over backends on different branches) never heals: the
 * refetches back off, and from the third on the log and /health (failure `rpc`) say which block
 * does not link to which.
 */
export class LinkBreaks {
  private readonly streak = new BlockStreak();

  constructor(
    private readonly chainId: number,
    private readonly logger: Logger,
    private readonly status: StepStatus,
    /** the first wait, doubled on each refetch of the same link */
    private readonly firstWaitMs: number,
  ) {}

  /** Counts a break at `brokenAt` in `blocks` (whose first block should follow `parent`); returns how long to wait before fetching again. */
  async seen(blocks: readonly BlockRow[], brokenAt: bigint, parent: Hex | null): Promise<number> {
    const count = this.streak.next(brokenAt);
    if (BlockStreak.staying(count)) {
      const i = blocks.findIndex((b) => b.number === brokenAt);
      const block = blocks[i]!;
      const previous = i > 0 ? blocks[i - 1]!.hash : parent;
      const error = new InconsistentChainDataError(
        `the node's block ${brokenAt} has parent hash ${block.parentHash}, but its block ${brokenAt - 1n} is ${previous}`,
      );
      this.logger.warn(
        { chainId: this.chainId, block: brokenAt.toString(), parentHash: block.parentHash, previousHash: previous, refetches: count },
        `${error.message}: fetched again ${count} times, still so; a node serving a chain that contradicts itself (restored from a state file, or backends on different branches behind one URL); retrying`,
      );
      await this.status.failed(error);
    }
    return Math.min(MAX_WAIT_MS, this.firstWaitMs * 2 ** (count - 1));
  }

  /** After a range that linked up. */
  clear(): void {
    this.streak.clear();
  }
}
