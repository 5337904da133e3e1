import type { Queryable } from '../client.js';
import { copyIndexesToIndexedChains } from '../chain-partitions.js';

// The holders of one ERC-1155 token id (GET …/tokens/{address}/instances/{id}/holders): one range
// scan of this index per page at any depth, as token_balances_page is for the whole token. Only
// rows with a token id enter it (ERC-1155 and ERC-404-style tokens), so no other token's write
// pays for it; the held-balance predicate is token_balances_page's.
//
// Like every page index since migration 024 it is the DEFAULT partition's, and a chain's own
// partition gets its copy: at the backfill's hand-over for a chain still backfilling (which
// copies every index of the default partition), here for a chain already handed over.
export const sql = /* sql */ `
CREATE INDEX token_balances_by_id ON token_balances_default (chain_id, token, token_id, value DESC, holder DESC)
  WHERE token_id IS NOT NULL AND value > 0 AND holder <> '\\x0000000000000000000000000000000000000000'::bytea;
`;

export const after = (tx: Queryable) => copyIndexesToIndexedChains(tx);
