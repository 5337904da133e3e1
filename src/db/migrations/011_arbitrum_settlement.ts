// Arbitrum settlement, followed on the parent chain (src/chains/arbitrum/): batches and
// confirmations with the parent transactions that carry them, the follower's progress (its tip,
// the parent's head and `safe` block) and the parent block hashes it has passed, which find the
// common ancestor after a parent-chain reorg. The API joins a block to its batch and its
// confirmation by child block number: the first batch / confirmation whose last block is at or
// after it, so a batch's or a confirmation's row is all there is to write or undo.
export const sql = /* sql */ `
CREATE TABLE arbitrum_batches (
  chain_id bigint NOT NULL,
  batch_number bigint NOT NULL,
  -- child blocks sealed by the batch; NULL while unknown (a batch posted by a contract whose
  -- neighbours are not both known yet)
  first_block bigint,
  last_block bigint,
  range_from_neighbours boolean NOT NULL DEFAULT false,
  data_container text,
  tx_hash bytea NOT NULL,
  parent_block bigint NOT NULL,
  parent_timestamp bigint NOT NULL,
  PRIMARY KEY (chain_id, batch_number)
);
CREATE INDEX arbitrum_batches_by_last_block ON arbitrum_batches (chain_id, last_block);
CREATE INDEX arbitrum_batches_by_parent_block ON arbitrum_batches (chain_id, parent_block);

CREATE TABLE arbitrum_confirmations (
  chain_id bigint NOT NULL,
  parent_block bigint NOT NULL,
  log_index integer NOT NULL,
  -- the child block of SendRootUpdated's l2BlockHash: it and every block since the previous
  -- confirmation are confirmed
  last_block bigint NOT NULL,
  block_hash bytea NOT NULL,
  send_root bytea NOT NULL,
  tx_hash bytea NOT NULL,
  parent_timestamp bigint NOT NULL,
  PRIMARY KEY (chain_id, parent_block, log_index)
);
CREATE INDEX arbitrum_confirmations_by_last_block ON arbitrum_confirmations (chain_id, last_block, parent_block);

CREATE TABLE arbitrum_parent (
  chain_id bigint PRIMARY KEY,
  parent_chain_id bigint NOT NULL,
  sequencer_inbox bytea NOT NULL,
  outbox bytea NOT NULL,
  -- the last parent block whose events are stored, and its hash
  indexed_block bigint,
  indexed_hash bytea,
  head_block bigint,
  safe_block bigint,
  polled_at timestamptz
);

CREATE TABLE arbitrum_parent_checkpoints (
  chain_id bigint NOT NULL,
  number bigint NOT NULL,
  hash bytea NOT NULL,
  PRIMARY KEY (chain_id, number)
);
`;
