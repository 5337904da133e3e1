/**
 * Row shapes shared by the indexer (writer) and the API (reader).
 * Hashes are lowercase 0x-hex strings in code; amounts are bigint; they become
 * bytea / numeric(78,0) in SQL and never pass through a JS number.
 */
export type Hex = `0x${string}`;

export type TokenType = 'ERC-20' | 'ERC-721' | 'ERC-1155';

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
