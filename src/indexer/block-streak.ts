/** Tries of one block before a fault is said: a reorg, a lagging backend or a node that reorganised mid-fetch heals in one or two. */
const SAY_AFTER = 3;

/** How many times in a row one block has come back to a fault: one that heals in a try or two, or one that stays. */
export class BlockStreak {
  private at: bigint | null = null;
  private count = 0;

  /** Counts `block` once more; the length of its run so far. */
  next(block: bigint): number {
    this.count = block === this.at ? this.count + 1 : 1;
    this.at = block;
    return this.count;
  }

  /** Whether a run of `count` is one that stays, to be said (log, /health) rather than retried quietly. */
  static staying(count: number): boolean {
    return count >= SAY_AFTER;
  }

  clear(): void {
    this.at = null;
    this.count = 0;
  }
}
