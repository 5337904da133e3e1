import type { BlockNotAvailableError } from '../rpc/errors.js';
import type { Logger } from './logger.js';
import type { StepStatus } from './step-status.js';
import { BlockStreak } from './block-streak.js';

/**
 * A block the node keeps not giving as itself: none, or receipts of another block (a provider's
 * backends on different branches, a node that stores a transaction under two hashes). A reorg to
 * a shorter branch or a backend behind heals at the next plan; one that does not was retried at
 * debug level for ever, /health ok and the failure metric 0 while the index stood still (OP-stack
 * review: 3.5 min silent, then only a lag alarm). From the third replan of the same block in a
 * row the log says what is wrong with it and /health records an RPC failure.
 */
export class UnavailableBlocks {
  private readonly streak = new BlockStreak();

  constructor(
    private readonly chainId: number,
    private readonly logger: Logger,
    private readonly status: StepStatus,
  ) {}

  /** Counts one more time `error`'s block was not had; true once it is said (a failed step, for the caller's metric). */
  async seen(error: BlockNotAvailableError): Promise<boolean> {
    const count = this.streak.next(error.blockNumber);
    if (!BlockStreak.staying(count)) {
      this.logger.debug({ chainId: this.chainId, block: error.blockNumber.toString(), problem: error.problem }, 'block gone while fetching; replanning');
      return false;
    }
    this.logger.warn(
      { chainId: this.chainId, block: error.blockNumber.toString(), problem: error.problem, replans: count },
      `the node has not given block ${error.blockNumber} as itself in ${count} tries (${error.problem}); retrying`,
    );
    await this.status.failed(error);
    return true;
  }

  /** After a step that went through. */
  clear(): void {
    this.streak.clear();
  }
}
