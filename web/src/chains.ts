// /health gives chain ids only; well-known ones get a readable name in the picker.
const NAMES: Record<number, string> = {
  1: 'Ethereum',
  10: 'OP Mainnet',
  56: 'BNB Smart Chain',
  100: 'Gnosis',
  137: 'Polygon',
  8453: 'Base',
  17000: 'Holesky',
  31337: 'Local devnet',
  42161: 'Arbitrum One',
  42170: 'Arbitrum Nova',
  421614: 'Arbitrum Sepolia',
  11155111: 'Sepolia',
};

export function chainName(id: number): string {
  return NAMES[id] ?? `Chain ${id}`;
}
