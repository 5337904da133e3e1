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

  clear(): void {
    this.at = null;
    this.count = 0;
  }
}
