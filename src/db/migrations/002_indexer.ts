// What the indexer needs beyond what the API reads: the balance changes of recent blocks,
// kept for the reorg window so a rollback can subtract exactly what those blocks added.
export const sql = /* sql */ `
CREATE TABLE balance_changes (
  chain_id      bigint NOT NULL,
  block_number  bigint NOT NULL,
  token         bytea NOT NULL,
  holder        bytea NOT NULL,
  token_id      numeric(78,0),
  delta         numeric(79,0) NOT NULL
);
CREATE INDEX balance_changes_by_block ON balance_changes (chain_id, block_number);

ALTER TABLE tokens ADD COLUMN metadata_fetched boolean NOT NULL DEFAULT false;
CREATE INDEX tokens_metadata_pending ON tokens (chain_id) WHERE NOT metadata_fetched;
CREATE INDEX addresses_unchecked ON addresses (chain_id) WHERE checked_at IS NULL;
`;
