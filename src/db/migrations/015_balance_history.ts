// Holders at any past block (issue 13). Every balance change is kept with its block as the
// absolute value after that block, so "the balance at N" is the latest row at or below N: one
// backward probe of balance_history_key, and a whole token at N one backward scan of the
// token's range. Rows of an orphaned block are deleted in the rollback's transaction.
//
// The block_number index is BRIN: rows arrive in block order, and it only serves the
// rollback (rows above the fork point) and the horizon prune, so a few pages do what a
// btree over every row would do at a cost on every insert.
//
// An upgraded index has no past: its current balances become the base rows (at the block
// each last changed), and its history starts at the indexed block.
export const sql = /* sql */ `
CREATE TABLE balance_history (
  chain_id      bigint NOT NULL,
  token         bytea NOT NULL,
  holder        bytea NOT NULL,
  token_id      numeric(78,0),
  block_number  bigint NOT NULL,
  value         numeric(78,0) NOT NULL,
  CONSTRAINT balance_history_key UNIQUE NULLS NOT DISTINCT (chain_id, token, holder, token_id, block_number)
);
CREATE INDEX balance_history_by_block ON balance_history USING brin (chain_id, block_number);

-- lowest block whose balances history answers (null: nothing indexed yet)
ALTER TABLE chains ADD COLUMN history_from bigint;
-- first block with an event of the token: a snapshot before it is a 404
ALTER TABLE tokens ADD COLUMN first_block bigint;

INSERT INTO balance_history (chain_id, token, holder, token_id, block_number, value)
  SELECT chain_id, token, holder, token_id, block_number, value FROM token_balances WHERE value <> 0;
UPDATE chains SET history_from = indexed_block;
UPDATE tokens t SET first_block = f.first FROM (
  SELECT chain_id, token, min(block_number) AS first FROM token_balances GROUP BY chain_id, token
) f WHERE f.chain_id = t.chain_id AND f.token = t.address;
`;
