// Holders at a past block without a snapshot (issue 13). Migration 015 kept every balance's
// value after each block it changed in, so a whole token at block N was a pass over its
// history up to N, materialized per (token, block) by migration 016: minutes at 10M holders.
//
// Now each past value is an interval: the value a balance held from the block that set it
// (from_block) up to the block that changed it (to_block, exclusive), kept only while it was
// positive. The current value stays the live row in token_balances, whose block_number becomes
// exact: the block of its last change. The holders at N are the live rows set at or before N
// and the intervals spanning N. Both tables carry a page index in the holders order with the
// blocks included, so a page at N is two index range scans merged, at any depth, first time
// or not (BENCHMARKS.md, "Holders at a past block").
//
// The key index answers one balance at N (the first interval ending after N) and gives the
// rollback the intervals to reopen; the BRIN index on to_block (intervals are written as they
// close, so to_block follows the heap's order) serves the rollback and the horizon prune.
// token_balances.prev_block is where the upsert leaves a row's previous block, so RETURNING
// gives the interval it closes without a second probe.
//
// holder_snapshots stays as a cache of the counts at a block (holder count, total),
// which are a pass over the token's holders at N; the snapshot rows go.
export const sql = /* sql */ `
ALTER TABLE token_balances ADD COLUMN prev_block bigint;

CREATE TABLE balance_intervals (
  chain_id    bigint NOT NULL,
  token       bytea NOT NULL,
  holder      bytea NOT NULL,
  token_id    numeric(78,0),
  value       numeric(78,0) NOT NULL,
  from_block  bigint NOT NULL,
  to_block    bigint NOT NULL
);

INSERT INTO balance_intervals (chain_id, token, holder, token_id, value, from_block, to_block)
  SELECT chain_id, token, holder, token_id, value, block_number, next_block FROM (
    SELECT h.*, lead(h.block_number) OVER (PARTITION BY h.chain_id, h.token, h.holder, h.token_id ORDER BY h.block_number) AS next_block
    FROM balance_history h
  ) h
  WHERE next_block IS NOT NULL AND value > 0 AND holder <> '\\x0000000000000000000000000000000000000000'::bytea;

-- the live rows' exact block: their latest kept change (before, the block of the batch)
UPDATE token_balances b SET block_number = l.last_block
FROM (SELECT chain_id, token, holder, token_id, max(block_number) AS last_block FROM balance_history
      GROUP BY chain_id, token, holder, token_id) l
WHERE l.chain_id = b.chain_id AND l.token = b.token AND l.holder = b.holder
  AND l.token_id IS NOT DISTINCT FROM b.token_id AND l.last_block <> b.block_number;

CREATE INDEX balance_intervals_key ON balance_intervals (chain_id, token, holder, token_id, to_block);
CREATE INDEX balance_intervals_page ON balance_intervals (chain_id, token, value DESC, holder DESC, token_id DESC)
  INCLUDE (from_block, to_block);
CREATE INDEX balance_intervals_by_end ON balance_intervals USING brin (chain_id, to_block);

DROP INDEX token_balances_page;
CREATE INDEX token_balances_page ON token_balances (chain_id, token, value DESC, holder DESC, token_id DESC)
  INCLUDE (block_number)
  WHERE value > 0 AND holder <> '\\x0000000000000000000000000000000000000000'::bytea;

DROP TABLE balance_history;
DROP TABLE holder_snapshot_rows;
DELETE FROM holder_snapshots;
ALTER TABLE holder_snapshots DROP COLUMN row_count;
`;
