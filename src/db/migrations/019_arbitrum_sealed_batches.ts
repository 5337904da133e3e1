// Arbitrum batch numbers the child node's NodeInterface gives for blocks whose batch was not seen
// on the parent chain (posted before `parentStartBlock`, a legacy batch whose range its
// neighbours do not give, or a parent follower that lags): their blocks are "Sealed on rollup".
// A row is the range of child blocks found in one batch; a batch also seen on the parent with a
// range that holds it needs no row (the follower and the finder delete it). A batch seen on the
// parent whose transaction gives no range (legacy, or posted by a contract, with a neighbour not
// seen) takes its range from the NodeInterface instead: \`range_from_node\`.
export const sql = /* sql */ `
CREATE TABLE arbitrum_sealed_batches (
  chain_id bigint NOT NULL,
  batch_number bigint NOT NULL,
  first_block bigint NOT NULL,
  last_block bigint NOT NULL,
  PRIMARY KEY (chain_id, batch_number)
);
CREATE INDEX arbitrum_sealed_batches_by_last_block ON arbitrum_sealed_batches (chain_id, last_block);
ALTER TABLE arbitrum_batches ADD COLUMN range_from_node boolean NOT NULL DEFAULT false;
`;
