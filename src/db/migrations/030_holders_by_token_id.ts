import type { Queryable } from '../client.js';
import { copyIndexesToIndexedChains } from '../chain-partitions.js';

// The holders of one ERC-1155 token id (GET …/tokens/{address}/instances/{id}/holders), now or at a
// past block: one range scan per page at any depth of this pair of indexes, as token_balances_page
// and balance_intervals_page are for the whole token (migration 023), with the same included
// columns, so a page at a past block reads both index-only. Only rows with a token id enter
// them (ERC-1155 and ERC-404-style tokens), so no other token's write pays for them; the
// held-balance predicate is token_balances_page's (intervals are held balances already).
//
// Like every page index since migration 024 they are the DEFAULT partitions', and a chain's own
// partitions get their copies: at the backfill's hand-over for a chain still backfilling (which
// copies every index of the default partitions), here for a chain already handed over.
export const sql = /* sql */ `
CREATE INDEX token_balances_by_id ON token_balances_default (chain_id, token, token_id, value DESC, holder DESC)
  INCLUDE (block_number)
  WHERE token_id IS NOT NULL AND value > 0 AND holder <> '\\x0000000000000000000000000000000000000000'::bytea;
CREATE INDEX balance_intervals_by_id ON balance_intervals_default (chain_id, token, token_id, value DESC, holder DESC)
  INCLUDE (from_block, to_block)
  WHERE token_id IS NOT NULL;
`;

export const after = (tx: Queryable) => copyIndexesToIndexedChains(tx);
