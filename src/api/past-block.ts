/**
 * A request for holders at a past block (`block_number` on the v2 routes, `blockno` on the
 * Etherscan-style ones), judged against what the index holds: each route renders the refusals
 * in its own API's shape.
 */
import type { Database } from '../db/client.js';
import type { Hex, TokenType } from '../db/rows.js';
import { historyBounds, snapshotAt, type SnapshotSummary } from '../db/queries/holder-snapshots.js';

export type PastBlock =
  | { ok: true; tokenType: TokenType; snapshot: SnapshotSummary }
  /** above the indexed block: not known yet */
  | { ok: false; refusal: 'beyond-index'; indexed: bigint | null }
  /** below where history starts (the horizon, or the first block indexed) */
  | { ok: false; refusal: 'below-history'; from: bigint | null }
  /** no such token, or the token's first event is after the block */
  | { ok: false; refusal: 'no-token' };

/** The token's holders at `block`, from its snapshot (built on first use), or why not. */
export async function pastBlockHolders(db: Database, chainId: number, token: Hex, block: bigint): Promise<PastBlock> {
  const bounds = await historyBounds(db, chainId, token);
  if (bounds.indexed === null || block > bounds.indexed) return { ok: false, refusal: 'beyond-index', indexed: bounds.indexed };
  if (bounds.from === null || block < bounds.from) return { ok: false, refusal: 'below-history', from: bounds.from };
  if (bounds.tokenType === null || (bounds.tokenFirstBlock !== null && block < bounds.tokenFirstBlock)) return { ok: false, refusal: 'no-token' };
  return { ok: true, tokenType: bounds.tokenType, snapshot: await snapshotAt(db, chainId, token, block) };
}

/** The 422 texts of the v2 routes (the reference has no such parameter: ours, in its wording's style). */
export function pastBlockDetail(block: bigint, refusal: Extract<PastBlock, { ok: false }>): string {
  if (refusal.refusal === 'beyond-index') {
    return refusal.indexed === null ? `${block} is not indexed yet` : `${block} is larger than the indexed block ${refusal.indexed}`;
  }
  if (refusal.refusal === 'below-history') {
    return refusal.from === null ? `${block} is not indexed yet` : `${block} is below the kept balance history, which starts at block ${refusal.from}`;
  }
  return 'Not found';
}
