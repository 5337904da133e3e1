/**
 * Row shapes shared by the indexer (writer) and the API (reader).
 * Hashes are lowercase 0x-hex strings in code; amounts are bigint; they become
 * bytea / numeric(78,0) in SQL and never pass through a JS number.
 */
export type Hex = `0x${string}`;

export type TokenType = 'ERC-20' | 'ERC-721' | 'ERC-1155';

export interface Reward {
  /** wei */
  reward: bigint;
  /** e.g. "Miner Reward", "Uncle Reward", "Emission Reward", "validator" */
  type: string;
  address: Hex;
}

export interface ArbitrumBlockFields {
  batch_number: number | null;
  status: string | null;
  batch_data_container: string | null;
  commitment_transaction: { hash: string | null; status: string | null; timestamp: string | null } | null;
  confirmation_transaction: { hash: string | null; status: string | null; timestamp: string | null } | null;
  delayed_messages: number | null;
  l1_block_number: number | null;
  send_count: number | null;
  send_root: string | null;
}

export interface BlockRow {
  chainId: number;
  number: bigint;
  hash: Hex;
  parentHash: Hex;
  /** 8-byte hex, e.g. 0x0000000000000000 */
  nonce: Hex;
  /** unix seconds */
  timestamp: bigint;
  miner: Hex;
  size: bigint;
  difficulty: bigint;
  /** null when the node does not report it */
  totalDifficulty: bigint | null;
  gasLimit: bigint;
  gasUsed: bigint;
  /** null before EIP-1559 */
  baseFeePerGas: bigint | null;
  burntFees: bigint;
  priorityFee: bigint;
  transactionFees: bigint;
  transactionsCount: number;
  /** null when the node has no traces */
  internalTransactionsCount: number | null;
  /** null when the block has no withdrawals field */
  withdrawalsCount: number | null;
  rewards: Reward[];
  uncleHashes: Hex[];
  /** false for orphaned (reorged-out) blocks and uncles */
  consensus: boolean;
  isUncle: boolean;
  arbitrum: ArbitrumBlockFields | null;
}

export interface TokenRow {
  chainId: number;
  address: Hex;
  type: TokenType;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  totalSupply: bigint | null;
}

/** Current balance of one (token, holder, token_id). token_id is null except for ERC-1155. */
export interface BalanceRow {
  chainId: number;
  token: Hex;
  holder: Hex;
  tokenId: bigint | null;
  value: bigint;
  blockNumber: bigint;
}

export interface AddressImplementation {
  address: Hex;
  name: string | null;
}

export type ProxyType = 'eip1167' | 'eip1967' | 'eip1822' | 'eip1967_beacon' | 'eip7702' | 'eip930' | 'basic_implementation' | 'unknown';

export interface AddressRow {
  chainId: number;
  hash: Hex;
  isContract: boolean;
  proxyType: ProxyType | null;
  implementations: AddressImplementation[];
  name: string | null;
  isVerified: boolean;
  ensDomainName: string | null;
  isScam: boolean;
}

export interface AddressTagRow {
  chainId: number;
  address: Hex;
  /** public: {address_hash, display_name, label}; metadata: inside metadata.tags */
  kind: 'public' | 'metadata';
  slug: string;
  name: string;
  tagType: string;
  ordinal: number;
  meta: Record<string, string>;
}
