import type { Database } from '../db/client.js';
import type { Hex } from '../db/rows.js';
import { partsAhead, type PartMark } from '../db/queries/token-parts.js';
import type { RpcClient } from '../rpc/client.js';
import { rollBackTo } from './reorg.js';
import type { Logger } from './logger.js';
import type { IndexBatch } from './transform.js';

/**
 * Token parts a crash left ahead of the indexed block (./write-parts.ts): they committed a batch
 * whose own transaction did not. The next batch must be that one exactly, written again for the
 * parts behind; unless the node no longer has it, in which case the parts ahead are set back.
 */
export class PartsAhead {
  private mark: PartMark | null = null;

  constructor(
    private readonly db: Database,
    private readonly rpc: RpcClient,
    private readonly chainId: number,
    private readonly logger: Logger,
    private readonly ensRegistry: Hex | null,
  ) {}

  /** Reads the parts' marks: at a start, and after a failed step (one may have failed between the commits). */
  async load(): Promise<void> {
    this.mark = await partsAhead(this.db, this.chainId);
  }

  /** Whether some are ahead: the next batch is then written in parts whatever the path. */
  get pending(): boolean {
    return this.mark !== null;
  }

  /** The block the next batch must end at, if some are ahead. */
  get through(): bigint | undefined {
    return this.mark?.block;
  }

  /** None is ahead now: the batch they were ahead in is written, or a rollback's transaction dropped the marks above where it went back to (reorg.ts). */
  clear(): void {
    this.mark = null;
  }

  /**
   * Sets the parts ahead of the indexed `tip` back when the node does not have their batch as
   * they wrote it: its head is below that batch's end, or `batch` (the one ending there) has
   * another block there. Their balances then take what the token contracts report at the tip and
   * their history above it is undone, as a rollback deeper than the recorded changes does (their
   * changes never are recorded). Nothing of it needs the page indexes: a backfill carries on.
   * True if it set them back.
   */
  async setBackUnlessOnNode(tip: bigint, head: bigint, batch?: IndexBatch): Promise<boolean> {
    const mark = this.mark;
    if (mark === null) return false;
    const why =
      head < mark.block ? `the node's head ${head} is below it` : batch && batch.blocks[batch.blocks.length - 1]!.hash !== mark.hash ? 'the node has another block there now' : null;
    if (why === null) return false;
    this.logger.warn(
      { chainId: this.chainId, tip: tip.toString(), partsAt: mark.block.toString() },
      `token parts written past the indexed block before a crash are set back: ${why}`,
    );
    await rollBackTo(this.db, this.rpc, this.chainId, tip, tip, this.logger, this.ensRegistry, false);
    this.mark = null;
    return true;
  }
}
