// Etherscan-style getminedblocks&blocktype=uncles lists a miner's uncles: without this index
// that is a walk over every block the miner produced. Uncles are rare, so the index is tiny.
export const sql = /* sql */ `
CREATE INDEX blocks_uncles_by_miner ON blocks (chain_id, miner, number DESC) WHERE is_uncle AND NOT consensus;
`;
