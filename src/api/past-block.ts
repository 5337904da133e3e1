/**
 * A request for holders at a past block (`block_number` on the v2 routes, `blockno` on the
 * Etherscan-style ones), judged against what the index holds: each route renders the refusals
 * in its own API's shape.
 */
import type { Queryable } from '../db/client.js';
import type { Hex, TokenType } from '../db/rows.js';
import { historyBounds } from '../db/queries/balance-history.js';
import { InvalidParameterError, notFound } from './http-error.js';

export type PastBlock =
  | { ok: true; tokenType: TokenType }
  /** above the indexed block: not known yet (`tokenKnown`: whether the index has the token at all) */
  | { ok: false; refusal: 'beyond-index'; indexed: bigint | null; tokenKnown: boolean }
  /** below where history starts (the horizon, or the first block indexed) */
  | { ok: false; refusal: 'below-history'; from: bigint | null; tokenKnown: boolean }
  /** no such token, or the token's first event is after the block */
  | { ok: false; refusal: 'no-token' };

/** Whether the token's holders at `block` can be answered, or why not. */
export async function checkPastBlock(db: Queryable, chainId: number, token: Hex, block: bigint): Promise<PastBlock> {
  const bounds = await historyBounds(db, chainId, token);
  const tokenKnown = bounds.tokenType !== null;
  if (bounds.indexed === null || block > bounds.indexed) return { ok: false, refusal: 'beyond-index', indexed: bounds.indexed, tokenKnown };
  if (bounds.from === null || block < bounds.from) return { ok: false, refusal: 'below-history', from: bounds.from, tokenKnown };
  if (bounds.tokenType === null || (bounds.tokenFirstBlock !== null && block < bounds.tokenFirstBlock)) return { ok: false, refusal: 'no-token' };
  return { ok: true, tokenType: bounds.tokenType };
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

/** The v2 routes' check of `block_number`: the token's type, or a 404 (no token then) or a 422. */
export async function pastBlockOrRefuse(db: Queryable, chainId: number, token: Hex, block: bigint): Promise<TokenType> {
  const past = await checkPastBlock(db, chainId, token, block);
  if (past.ok) return past.tokenType;
  // an unknown token is a 404 at any block, as without one (the Etherscan-style side still
  // refuses the block: its "no token" is an answer, "0" or no records, not an error)
  if (past.refusal === 'no-token' || !past.tokenKnown) throw notFound();
  throw new InvalidParameterError([{ param: 'block_number', detail: pastBlockDetail(block, past) }]);
}
