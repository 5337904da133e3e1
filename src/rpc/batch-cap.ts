import type { BatchRefusal } from './batch-refusal.js';

/** A batch cap moved: lowered by a refusal, or raised again after batches were answered in full. */
export type BatchCapChange = { cap: number; refused: number; refusal: BatchRefusal } | { cap: number; grown: true };

/** Full batches answered in a row before a cap by bytes doubles back towards the setting. */
export const GROW_AFTER = 50;
/** Full batches answered in a row before a cap by calls found by halving tries halfway to the size refused. */
export const PROBE_AFTER = 10;

/**
 * How many calls one request to a URL may carry: the setting, until the URL refuses a batch for
 * its size (./classify-failure.ts `batchRefusalOf`).
 *
 * By calls, the URL's cap does not move. A refusal that names it sets it. One that does not is
 * met by halving, which may land below the cap: after `PROBE_AFTER` full batches answered, the
 * size halfway to the smallest refused is tried, until the two meet (a few refused batches, once).
 *
 * By the answer's bytes, the cap depends on the blocks asked for (a run of busy blocks' receipts
 * passes it, quiet blocks' do not): after `GROW_AFTER` full batches answered in a row it doubles
 * back towards the setting, and a refusal lowers it again.
 */
export class BatchCap {
  private byCalls = Number.POSITIVE_INFINITY;
  private byBytes = Number.POSITIVE_INFINITY;
  /** the largest batch answered whole, and the smallest refused by calls */
  private largestAnswered = 0;
  private smallestRefused = Number.POSITIVE_INFINITY;
  private fullInARow = 0;

  constructor(
    private readonly setting: number,
    private readonly onChange: (change: BatchCapChange) => void = () => undefined,
  ) {}

  /** The most calls a request carries now. */
  get calls(): number {
    return Math.max(1, Math.min(this.setting, this.byCalls, this.byBytes));
  }

  /**
   * A batch of `batch` calls was refused for its size; by bytes, its first `fitted` calls were
   * answered. By calls the cap becomes the number the refusal names, else halfway between the
   * largest batch answered and this one; by bytes, what fitted, else half the batch.
   */
  refused(refusal: BatchRefusal, batch: number, fitted: number): void {
    this.fullInARow = 0;
    let next: number;
    if (refusal.by === 'calls') {
      this.smallestRefused = Math.min(this.smallestRefused, refusal.limit === null ? batch : refusal.limit + 1);
      next = refusal.limit ?? Math.max(this.largestAnswered, Math.floor((this.largestAnswered + batch) / 2));
    } else {
      next = fitted > 0 ? fitted : Math.floor(batch / 2);
    }
    next = Math.max(1, Math.min(next, batch - 1));
    if (next >= this.calls) return;
    if (refusal.by === 'calls') this.byCalls = next;
    else this.byBytes = next;
    this.onChange({ cap: this.calls, refused: batch, refusal });
  }

  /** A batch of `batch` calls was answered without a refusal. */
  answered(batch: number): void {
    this.largestAnswered = Math.max(this.largestAnswered, batch);
    if (batch < this.calls) return;
    this.fullInARow++;
    const probing = this.byCalls !== Number.POSITIVE_INFINITY && this.byCalls + 1 < this.smallestRefused;
    if (probing && this.byCalls === this.calls && this.fullInARow >= PROBE_AFTER) {
      this.fullInARow = 0;
      this.byCalls = Math.floor((this.byCalls + this.smallestRefused) / 2);
      this.onChange({ cap: this.calls, grown: true });
    } else if (this.byBytes !== Number.POSITIVE_INFINITY && this.fullInARow >= GROW_AFTER) {
      this.fullInARow = 0;
      const doubled = this.byBytes * 2;
      this.byBytes = doubled >= Math.min(this.setting, this.byCalls) ? Number.POSITIVE_INFINITY : doubled;
      this.onChange({ cap: this.calls, grown: true });
    }
  }
}
