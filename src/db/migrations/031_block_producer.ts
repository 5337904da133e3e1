// Whose blocks a chain's were filed under when first indexed (config `blockProducer`): a change
// after that applies to new blocks only, which the start says (indexer/block-producer-check.ts).
// NULL: a chain indexed before this column, by the header's `miner`.
export const sql = /* sql */ `
ALTER TABLE chains ADD COLUMN block_producer text;
`;
