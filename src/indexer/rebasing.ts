/**
 * Which balances a batch reads from the token contracts (balanceOf at the batch's last block)
 * instead of trusting its events, for tokens whose balances change without events:
 *
 * - every balance of a rebasing token (configured) or of a token seen driving a balance negative
 *   (learned) that the batch's transfers touch;
 * - a slice of a rolling sweep over all holders of the rebasing tokens, so that a balance
 *   changed by a rebase alone is corrected too. A pass over the whole holder set takes at most
 *   `sweepBatches` batches: its slice is 1/sweepBatches of the rows counted when it starts (at
 *   least MIN_SLICE), and its last batch reads whatever remains. So a rebase is fully reflected
 *   at most 2 × sweepBatches batches after it happened (a pass already under way may have
 *   passed some holders before the rebase), and one pass after it for every holder the pass
 *   reads after the rebase; each batch reads ≈ holders / sweepBatches balances instead of all.
 */
import type { Queryable } from '../db/client.js';
import type { Hex } from '../db/rows.js';
import type { BalanceKey } from '../db/queries/write-balances.js';
import { fungibleRowCount, holdersAfter, sweepPosition, type SweepPosition } from '../db/queries/rebasing-sweep.js';
import type { IndexBatch } from './transform.js';

/** Fewer reads than this per batch are not worth spreading over more batches. */
export const MIN_SLICE = 100;

export interface ReconcilePlan {
  keys: BalanceKey[];
  /** the sweep position to commit with the batch; undefined when there is no sweep */
  sweep: SweepPosition | null | undefined;
  touched: number;
  swept: number;
  /** this batch completed a pass over every holder */
  passComplete: boolean;
}

export class RebasingBalances {
  /** in byte order, as the sweep walks them */
  private readonly tokens: Hex[];
  private readonly configured: ReadonlySet<Hex>;
  private readonly learned = new Set<Hex>();

  constructor(
    tokens: readonly Hex[],
    private readonly sweepBatches: number,
  ) {
    this.tokens = [...new Set(tokens.map((t) => t.toLowerCase() as Hex))].sort();
    this.configured = new Set(this.tokens);
  }

  /** Tokens that drove balances negative: their touched balances are read from now on. */
  learn(tokens: Iterable<Hex>): void {
    for (const token of tokens) if (!this.configured.has(token)) this.learned.add(token);
  }

  async plan(db: Queryable, chainId: number, batch: IndexBatch): Promise<ReconcilePlan> {
    const keys = new Map<string, BalanceKey>();
    const add = (key: BalanceKey) => keys.set(`${key.token}|${key.holder}|${key.tokenId ?? ''}`, key);
    for (const d of batch.deltas) {
      if (this.configured.has(d.token) || this.learned.has(d.token)) add({ token: d.token, holder: d.holder, tokenId: d.tokenId });
    }
    const touched = keys.size;
    if (this.tokens.length === 0) return { keys: [...keys.values()], sweep: undefined, touched, swept: 0, passComplete: false };

    const { holders, next } = await this.sweepSlice(db, chainId);
    for (const { token, holder } of holders) add({ token, holder, tokenId: null });
    return { keys: [...keys.values()], sweep: next, touched, swept: holders.length, passComplete: next === null };
  }

  /** The next slice of the sweep and the position after it (null: the pass is complete). */
  private async sweepSlice(db: Queryable, chainId: number): Promise<{ holders: Array<{ token: Hex; holder: Hex }>; next: SweepPosition | null }> {
    let position = await sweepPosition(db, chainId);
    if (position === null || !this.tokens.includes(position.token)) {
      const rows = await fungibleRowCount(db, chainId, this.tokens);
      position = { token: this.tokens[0]!, holder: null, batch: 0, slice: Math.max(MIN_SLICE, Math.ceil(rows / this.sweepBatches)) };
    }
    const last = position.batch >= this.sweepBatches - 1;
    const holders: Array<{ token: Hex; holder: Hex }> = [];
    let remaining = position.slice;
    let after = position.holder;
    for (let i = this.tokens.indexOf(position.token); i < this.tokens.length; i++, after = null) {
      const token = this.tokens[i]!;
      const page = await holdersAfter(db, chainId, token, after, last ? null : remaining);
      for (const holder of page) holders.push({ token, holder });
      remaining -= page.length;
      if (!last && remaining <= 0) {
        return { holders, next: { token, holder: page[page.length - 1]!, batch: position.batch + 1, slice: position.slice } };
      }
    }
    return { holders, next: null };
  }
}
