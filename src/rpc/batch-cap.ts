import type { BatchRefusal } from './classify-failure.js';

/** A batch cap moved: lowered by a refusal, or grown back after answers by bytes came in full. */
export type BatchCapChange = { cap: number; refused: number; refusal: BatchRefusal } | { cap: number; grown: true };

/** Full batches answered without a refusal before a cap by bytes doubles back towards the setting. */
export const GROW_AFTER = 50;

/**
 * How many calls one request to a URL may carry: the setting, until the URL refuses a batch for
 * its size (./classify-failure.ts `batchRefusalOf`). A cap by calls is the node's or provider's
 * setting and does not move: it is kept. A cap by the answer's bytes depends on the blocks asked
 * for (a run of busy blocks' receipts passes it, quiet blocks' do not), so after `GROW_AFTER` full
 * batches answered in a row it doubles back towards the setting; a refusal lowers it again.
 */
export class BatchCap {
  private byCalls = Number.POSITIVE_INFINITY;
  private byBytes = Number.POSITIVE_INFINITY;
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
   * answered. The cap becomes the number the refusal names, else what fitted, else half the batch.
   */
  refused(refusal: BatchRefusal, batch: number, fitted: number): void {
    const next = Math.max(1, Math.min(refusal.limit ?? (refusal.by === 'bytes' && fitted > 0 ? fitted : Math.floor(batch / 2)), batch - 1));
    this.fullInARow = 0;
    if (next >= this.calls) return;
    if (refusal.by === 'calls') this.byCalls = next;
    else this.byBytes = next;
    this.onChange({ cap: this.calls, refused: batch, refusal });
  }

  /** A batch of `batch` calls was answered without a refusal. */
  answered(batch: number): void {
    if (this.byBytes === Number.POSITIVE_INFINITY || batch < this.calls) return;
    if (++this.fullInARow < GROW_AFTER) return;
    this.fullInARow = 0;
    const doubled = this.byBytes * 2;
    this.byBytes = doubled >= Math.min(this.setting, this.byCalls) ? Number.POSITIVE_INFINITY : doubled;
    this.onChange({ cap: this.calls, grown: true });
  }
}
