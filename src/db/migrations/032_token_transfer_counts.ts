// A token's transfers as the reference's token counters report them (`transfers_count`): its
// balance-moving events, a TransferBatch counted once. NULL is "not known": tokens indexed before
// this column (their earlier events were never counted) and every token of a chain whose indexing
// began above block 0. New tokens of a chain indexed from genesis start at 0.
// transfer_counts keeps the counts of blocks still inside the reorg window, as balance_changes
// keeps their deltas, so that a rollback subtracts exactly what the orphaned blocks added.
// last_transfer_block: the highest block a counted transfer of the token was in (never lowered):
// a rollback below the window makes the count of every token with one above the ancestor
// unknown, those whose orphaned transfers moved no balance included (review).
export const sql = /* sql */ `
ALTER TABLE tokens ADD COLUMN transfers_count bigint;
ALTER TABLE tokens ADD COLUMN last_transfer_block bigint;
CREATE TABLE transfer_counts (
  chain_id      bigint NOT NULL,
  block_number  bigint NOT NULL,
  token         bytea NOT NULL,
  transfers     integer NOT NULL
);
CREATE INDEX transfer_counts_by_block ON transfer_counts (chain_id, block_number);
`;
