// The balance write's upsert leaves a row's previous value beside its previous block (migration
// 023's prev_block), and the row's position in the batch that wrote it (batch_key), so its
// RETURNING gives everything the statement derives (holder counts, held supply, the interval each
// change closes) without joining the upserted rows back to the batch's changes by their key:
// that join sorted both sides of every batch (BENCHMARKS.md). Both are scratch values of that one
// statement: only it reads them, and other writes leave them as they were.
export const sql = /* sql */ `
ALTER TABLE token_balances ADD COLUMN prev_value numeric(78,0);
ALTER TABLE token_balances ADD COLUMN batch_key integer;
`;
