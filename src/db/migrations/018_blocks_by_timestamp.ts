// getblocknobytime: the consensus block closest to a time, before or after it, is one probe at
// either end of a range of this index (block times never decrease along the consensus chain,
// but several blocks can share one second).
export const sql = /* sql */ `
CREATE INDEX blocks_consensus_timestamp ON blocks (chain_id, timestamp, number) WHERE consensus;
`;
