// Materialized holder snapshots (issue 13): a token's holders at a past block, computed once
// from balance_history and then paged like the live list, by (value DESC, holder DESC,
// token_id DESC) on an index of the same shape as token_balances_page. The catalog row keeps
// the block's hash: a snapshot whose block lost consensus is never served (it is recomputed),
// and a rollback deletes those above the fork point. Least recently used snapshots are evicted.
export const sql = /* sql */ `
CREATE TABLE holder_snapshots (
  chain_id      bigint NOT NULL,
  token         bytea NOT NULL,
  block_number  bigint NOT NULL,
  block_hash    bytea NOT NULL,
  holder_count  bigint NOT NULL,
  row_count     bigint NOT NULL,
  total         numeric(79,0) NOT NULL,
  used_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain_id, token, block_number)
);

CREATE TABLE holder_snapshot_rows (
  chain_id      bigint NOT NULL,
  token         bytea NOT NULL,
  block_number  bigint NOT NULL,
  holder        bytea NOT NULL,
  token_id      numeric(78,0),
  value         numeric(78,0) NOT NULL
);
CREATE INDEX holder_snapshot_rows_page ON holder_snapshot_rows (chain_id, token, block_number, value DESC, holder DESC, token_id DESC);
`;
