// The balance write's upsert leaves a row's previous value beside its previous block (migration
// 023's prev_block), so its RETURNING gives everything the statement derives (holder counts,
// held supply, the interval each change closes) without joining the upserted rows back to the
// batch's changes: that join sorted both sides of every batch (BENCHMARKS.md). Only the
// statement that set it reads it; other writes leave it as it was.
export const sql = /* sql */ `
ALTER TABLE token_balances ADD COLUMN prev_value numeric(78,0);
`;
