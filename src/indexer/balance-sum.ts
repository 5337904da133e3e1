import { ZERO_ADDRESS } from '../evm/hex.js';
import type { Hex } from '../db/rows.js';
import type { BlockDelta, KeyChanges } from '../db/queries/write-balances.js';

/**
 * Balance changes summed per (token, holder, token_id): a block's, from its transfers, and a
 * batch's, from its blocks' sums. Each key keeps the block of its last change and, once it
 * changes in a second block, each block's sum in block order: the values between them are what
 * the balance history keeps (write-balances.ts applyBlockChanges), worked out here rather than
 * by a window over the batch's changes in the write.
 */
export class BalanceSum {
  /** in order of first appearance */
  private readonly entries: KeyChanges[] = [];
  // token → holder (with the id, for ERC-1155) → entry: no key string is built per transfer for
  // the common case, and the token level is shared by all of a token's holders.
  private readonly byToken = new Map<Hex, Map<string, KeyChanges>>();

  /** The sums of per-block changes, given in block order. */
  static of(changes: Iterable<BlockDelta>): BalanceSum {
    const sum = new BalanceSum();
    for (const c of changes) sum.add(c.token, c.holder, c.tokenId, c.delta, c.blockNumber);
    return sum;
  }

  /** Adds a change made in `block`; a key's changes must come in block order. */
  add(token: Hex, holder: Hex, tokenId: bigint | null, delta: bigint, block: bigint): void {
    // The zero address is where mints come from and burns go: never a holder.
    if (holder === ZERO_ADDRESS || delta === 0n) return;
    let byHolder = this.byToken.get(token);
    if (byHolder === undefined) {
      byHolder = new Map();
      this.byToken.set(token, byHolder);
    }
    const k = tokenId === null ? holder : `${holder}|${tokenId}`;
    const entry = byHolder.get(k);
    if (entry === undefined) {
      const created: KeyChanges = { token, holder, tokenId, delta, blockNumber: block, steps: null };
      byHolder.set(k, created);
      this.entries.push(created);
      return;
    }
    if (block !== entry.blockNumber) {
      // (the first step is everything before: all of it in the entry's one block so far)
      const steps = (entry.steps ??= [{ blockNumber: entry.blockNumber, delta: entry.delta }]);
      steps.push({ blockNumber: block, delta });
      entry.blockNumber = block;
    } else if (entry.steps !== null) {
      entry.steps[entry.steps.length - 1]!.delta += delta;
    }
    entry.delta += delta;
  }

  /** the keys whose sum is not zero */
  nonZero(): KeyChanges[] {
    return this.entries.filter((d) => d.delta !== 0n);
  }

  /** the keys the history has something to keep for: a sum not zero, or changes in several blocks (the values between them), even netting to zero */
  changed(): KeyChanges[] {
    return this.entries.filter((d) => d.delta !== 0n || d.steps !== null);
  }
}
