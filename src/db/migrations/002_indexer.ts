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

-- lowest block from which every indexed block's changes are recorded: a rollback to an
-- ancestor at or above it is exact; below it the touched balances are reconciled instead
ALTER TABLE chains ADD COLUMN changes_from bigint;

ALTER TABLE tokens ADD COLUMN metadata_fetched boolean NOT NULL DEFAULT false;
CREATE INDEX tokens_metadata_pending ON tokens (chain_id) WHERE NOT metadata_fetched;
-- tiny: only a non-standard token's balances go negative, and they are reconciled
CREATE INDEX token_balances_negative ON token_balances (chain_id) WHERE value < 0;
CREATE INDEX addresses_unchecked ON addresses (chain_id) WHERE checked_at IS NULL;
`;
