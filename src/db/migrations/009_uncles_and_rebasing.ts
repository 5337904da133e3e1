// Uncles are stored (issue 12): a row known only from an uncle's header is marked, so that when
// the block including it is orphaned the row can go with it, while a block of our own that was
// later included as an uncle stays (as an orphan).
// Rebasing tokens are reconciled by a rolling sweep over their holders whose position is kept
// with the chain's progress (db/queries/rebasing-sweep.ts).
export const sql = /* sql */ `
ALTER TABLE blocks ADD COLUMN header_only boolean NOT NULL DEFAULT false;
ALTER TABLE chains ADD COLUMN rebasing_sweep jsonb;
`;
