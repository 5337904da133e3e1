/**
 * The block: its stored columns, defined once. The row type, the indexer's bulk write, the page
 * statement's select list and its row reader all derive from `blockColumns`; the wire object is
 * `api/views/block.ts` over this row. A chain kind's extra header fields (Arbitrum's, say) live
 * in `chainFields`, keyed by the kind (src/chains/), so the table needs no column per kind.
 */
import type { Hex } from '../rows.js';
import { bool, bytes, column, int4, int8, int8Number, json, nullable, text, uint256, upsertStatement, type RowOf } from './columns.js';

export interface Reward {
  /** wei */
  reward: bigint;
  /** e.g. "Miner Reward", "Uncle Reward", "Emission Reward", "validator" */
  type: string;
  address: Hex;
}

/** As kept in `blocks.rewards` (and read by SQL, e.g. getminedblocks): amounts as decimal text. */
export interface StoredReward {
  reward: string;
  type: string;
  address_hash: string;
}

/** Each chain kind's own header fields, under the kind's key (e.g. `arbitrum`). */
export type ChainFields = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

const rewards = json<Reward[], StoredReward[]>(
  (list) => list.map((r) => ({ reward: r.reward.toString(), type: r.type, address_hash: r.address.toLowerCase() })),
  (stored) => stored.map((r) => ({ reward: BigInt(r.reward), type: r.type, address: r.address_hash as Hex })),
);

export const blockColumns = {
  chainId: column('chain_id', int8Number),
  number: column('number', int8),
  hash: column('hash', bytes),
  parentHash: column('parent_hash', bytes),
  /** 8-byte hex, e.g. 0x0000000000000000 */
  nonce: column('nonce', bytes),
  /** unix seconds */
  timestamp: column('timestamp', int8),
  miner: column('miner', bytes),
  size: column('size', int8),
  difficulty: column('difficulty', uint256),
  /** null when the node does not report it */
  totalDifficulty: nullable(column('total_difficulty', uint256)),
  gasLimit: column('gas_limit', uint256),
  gasUsed: column('gas_used', uint256),
  /** null before EIP-1559 */
  baseFeePerGas: nullable(column('base_fee_per_gas', uint256)),
  burntFees: column('burnt_fees', uint256),
  priorityFee: column('priority_fee', uint256),
  transactionFees: column('transaction_fees', uint256),
  transactionsCount: column('transactions_count', int4),
  /** null when the node has no traces */
  internalTransactionsCount: nullable(column('internal_transactions_count', int4)),
  /** null when the block has no withdrawals field */
  withdrawalsCount: nullable(column('withdrawals_count', int4)),
  /** EIP-4844 header fields; null before Cancun and on chains whose headers lack them */
  blobGasUsed: nullable(column('blob_gas_used', uint256)),
  excessBlobGas: nullable(column('excess_blob_gas', uint256)),
  /** type-3 transactions; null only for blocks stored before migration 010 */
  blobTransactionsCount: nullable(column('blob_transactions_count', int4)),
  rewards: column('rewards', rewards),
  uncleHashes: column('uncle_hashes', json<Hex[]>()),
  /** false for orphaned (reorged-out) blocks and uncles */
  consensus: column('consensus', bool),
  /** a non-consensus block that a consensus block includes as an uncle */
  isUncle: column('is_uncle', bool),
  /**
   * known only from its header (an uncle fetched with eth_getUncleByBlockHashAndIndex): none of
   * its transactions, receipts or traces, so its fees and counts are 0 and it has no rewards
   */
  headerOnly: column('header_only', bool),
  chainFields: nullable(column('chain_fields', json<ChainFields>())),
} as const;

export type BlockRow = RowOf<typeof blockColumns>;

/**
 * The table's columns: the block's, and what is derived from them when the block is written,
 * `page_json` (the blocks-validated page's rendering of the stored fields,
 * api/views/block-page-json.ts; null for a block written before migration 021, or whose fields
 * changed since, until the indexer's backfill renders it; '' when too large to keep rendered,
 * db/queries/write-blocks.ts).
 */
export const blockTableColumns = {
  ...blockColumns,
  pageJson: nullable(column('page_json', text)),
} as const;

export type BlockTableRow = RowOf<typeof blockTableColumns>;

const keyColumns = new Set<string>(['chainId', 'hash']);
const valueColumns = (Object.keys(blockTableColumns) as Array<keyof typeof blockTableColumns>).filter((k) => !keyColumns.has(k));

/**
 * Blocks are written by hash. A block seen again (after a reorg, or with traces the first pass
 * lacked) is written whole: it may have been known only as an uncle's header before.
 */
export const upsertBlocksStatement = upsertStatement('blocks', blockTableColumns, {
  conflict: '(chain_id, hash)',
  update: valueColumns,
});

/**
 * Uncles, written as non-consensus header-only rows. An uncle we already hold as a block of our
 * own (orphaned by a reorg before a later block included it) keeps its data and is only marked
 * as an uncle; a consensus block is never touched.
 */
export const upsertUnclesStatement = upsertStatement('blocks', blockTableColumns, {
  conflict: '(chain_id, hash)',
  update: ['isUncle'],
  updateWhere: 'NOT blocks.consensus',
});

export type BlockType = 'block' | 'uncle' | 'reorg';

/** The reference's `type`: consensus blocks are "block", orphans "reorg", uncles "uncle". */
export function blockType(b: Pick<BlockRow, 'consensus' | 'isUncle'>): BlockType {
  return b.consensus ? 'block' : b.isUncle ? 'uncle' : 'reorg';
}
