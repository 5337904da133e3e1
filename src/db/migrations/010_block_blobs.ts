// EIP-4844 block fields (nullable: blocks stored before this migration get them from the node by
// the backfill, src/indexer/blob-backfill.ts; ADD COLUMN without a default rewrites nothing), the per-chain blob schedule the API prices blob
// gas with (null: the known schedule for the chain id), and the single-block route's lookup of
// non-consensus blocks by number (few rows: a partial index), and the backfill's scan of blocks
// stored before this migration (empty once they are filled).
export const sql = /* sql */ `
ALTER TABLE blocks ADD COLUMN blob_gas_used numeric(78,0);
ALTER TABLE blocks ADD COLUMN excess_blob_gas numeric(78,0);
ALTER TABLE blocks ADD COLUMN blob_transactions_count integer;
ALTER TABLE chains ADD COLUMN blob_schedule jsonb;
CREATE INDEX blocks_nonconsensus_number ON blocks (chain_id, number) WHERE NOT consensus;
CREATE INDEX blocks_blob_backfill ON blocks (chain_id, number DESC) WHERE blob_transactions_count IS NULL AND consensus;
`;
