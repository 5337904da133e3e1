/**
 * Wire shapes of the explorer API v2 (spec/000 and COMPATIBILITY.md), as served by this
 * project and by the hosted reference. Amounts and big integers are decimal strings.
 */

export interface AddressTag {
  address_hash: string;
  display_name: string;
  label: string;
}

export interface MetadataTag {
  name: string;
  slug: string;
  ordinal: number;
  tagType: string;
  meta: Record<string, string>;
}

export interface AddressObject {
  /** EIP-55 checksummed */
  hash: string;
  ens_domain_name: string | null;
  name: string | null;
  implementations: { address_hash: string; name: string | null }[];
  is_contract: boolean;
  is_scam: boolean;
  /** null when nothing is known of the address */
  is_verified: boolean | null;
  metadata: { tags: MetadataTag[] } | null;
  proxy_type: string | null;
  reputation: string;
  private_tags: AddressTag[];
  public_tags: AddressTag[];
  watchlist_names: { display_name: string; label: string }[];
}

export interface HolderItem {
  address: AddressObject;
  /** null except for ERC-1155 (and ERC-404) */
  token_id: string | null;
  value: string;
}

/** Where the next holders page starts; pass it back unchanged. */
export interface HoldersPageParams {
  /** lowercase */
  address_hash: string;
  items_count: number;
  value: string;
  /** ERC-1155 only, this server only: the third tie-breaker */
  token_id?: string;
  /** the restricted-access secret, echoed when it was sent */
  key?: string;
}

export interface L1Transaction {
  hash: string | null;
  status: string | null;
  timestamp: string | null;
}

export interface ArbitrumFields {
  batch_number: number | null;
  status: string | null;
  batch_data_container: string | null;
  commitment_transaction: L1Transaction | null;
  confirmation_transaction: L1Transaction | null;
  delayed_messages: number | null;
  l1_block_number: number | null;
  send_count: number | null;
  send_root: string | null;
}

export interface Block {
  hash: string;
  height: number;
  parent_hash: string;
  nonce: string;
  /** ISO 8601 UTC */
  timestamp: string;
  /** "block", "uncle" or "reorg" */
  type: string;
  miner: AddressObject;
  size: number;
  difficulty: string;
  total_difficulty: string | null;
  gas_limit: string;
  gas_used: string;
  gas_used_percentage: number;
  gas_target_percentage: number;
  base_fee_per_gas: string | null;
  burnt_fees: string;
  burnt_fees_percentage: number | null;
  priority_fee: string;
  transaction_fees: string;
  transactions_count: number;
  internal_transactions_count: number | null;
  withdrawals_count: number | null;
  is_pending_update: boolean;
  rewards: { reward: string; type: string; address_hash: string }[];
  uncles_hashes: { hash: string }[];
  arbitrum?: ArbitrumFields;
}

export interface BlocksPageParams {
  block_number: number;
  items_count: number;
  key?: string;
}

/** One page: `next_page_params` is null exactly when there is no further page. */
export interface Page<Item, Params> {
  items: Item[];
  next_page_params: Params | null;
}

export type HoldersPage = Page<HolderItem, HoldersPageParams>;
export type BlocksValidatedPage = Page<Block, BlocksPageParams>;

export interface TokenCounters {
  token_holders_count: string;
  transfers_count: string | null;
}

/** One entry of a 422 body. */
export interface ValidationIssue {
  title: string;
  source: { pointer: string };
  detail: string;
}
