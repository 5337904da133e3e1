// A token's events may say anything: a contract can emit Transfer(0, a, 2^256 − 1) ten times, and
// the sums of such amounts (a balance, a block's delta for a key, a token's held supply, a count's
// total) outgrew numeric(78,0): the batch's statement failed with "numeric field overflow" and
// was retried for ever, so one such contract stopped its chain's indexing. These columns hold
// sums, not single uint256 values, so they take 1,000 digits, PostgreSQL's most (no sum of
// events each below 2^256 gets there): no statement fails on a token that lies, whose figures are
// then what its events say (the negative-balance repair still reads balanceOf where they go below
// zero). Still whole numbers: a computed value is rounded to them as before. Widening rewrites no
// table; the partial indexes over these columns are built again.
export const sql = /* sql */ `
ALTER TABLE token_balances ALTER COLUMN value TYPE numeric(1000,0), ALTER COLUMN prev_value TYPE numeric(1000,0);
ALTER TABLE balance_intervals ALTER COLUMN value TYPE numeric(1000,0);
ALTER TABLE balance_changes ALTER COLUMN delta TYPE numeric(1000,0);
ALTER TABLE tokens ALTER COLUMN held_supply TYPE numeric(1000,0);
ALTER TABLE holder_snapshots ALTER COLUMN total TYPE numeric(1000,0);
`;
