// The indexer's state where every API process can read it (`explorer index` and `explorer serve`
// run apart on one PostgreSQL): when it last reached its node, and whether its steps are failing.
export const sql = /* sql */ `
ALTER TABLE chains ADD COLUMN polled_at timestamptz;
-- the first failure of the current run of failed steps; NULL once a step succeeds again
ALTER TABLE chains ADD COLUMN failing_since timestamptz;
ALTER TABLE chains ADD COLUMN failed_at timestamptz;
-- what failed: 'rpc', 'database' or 'internal' (never an error message: /health shows it)
ALTER TABLE chains ADD COLUMN failure text;
`;
