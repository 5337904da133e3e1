// A chain's balances and history each in a partition of their own (issue 14, the backfill
// path). An initial backfill writes a chain's rows with only the key its upsert needs and
// builds the page indexes once, in bulk, when it reaches the head (src/db/chain-partitions.ts):
// random-order index maintenance was most of a balance write's cost (BENCHMARKS.md, "The
// backfill path"). Indexes are per table, so deferring them for one chain needs that chain's
// rows in a table of their own, or every other chain's pages would lose theirs.
//
// The tables as they were become the DEFAULT partitions, renamed, with their rows and their
// indexes' names unchanged: no row is copied. Chains indexed before keep their rows there; a
// chain whose indexing starts afresh gets its own partitions. The parents carry only what
// every partition must have, the balance key (ON CONFLICT ON CONSTRAINT token_balances_key
// reads it); every other index is per partition, copied from the default partition's.
export const sql = /* sql */ `
ALTER TABLE token_balances RENAME TO token_balances_default;
ALTER TABLE token_balances_default RENAME CONSTRAINT token_balances_key TO token_balances_default_key;
CREATE TABLE token_balances (LIKE token_balances_default INCLUDING DEFAULTS) PARTITION BY LIST (chain_id);
ALTER TABLE token_balances ADD CONSTRAINT token_balances_key UNIQUE NULLS NOT DISTINCT (chain_id, token, holder, token_id);
ALTER TABLE token_balances ATTACH PARTITION token_balances_default DEFAULT;

ALTER TABLE balance_intervals RENAME TO balance_intervals_default;
CREATE TABLE balance_intervals (LIKE balance_intervals_default INCLUDING DEFAULTS) PARTITION BY LIST (chain_id);
ALTER TABLE balance_intervals ATTACH PARTITION balance_intervals_default DEFAULT;
`;
