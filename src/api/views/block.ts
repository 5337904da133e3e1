import type { PageBlock, ValidatedBlock } from '../../db/queries/blocks.js';
import { blockType } from '../../db/model/block.js';
import { chainFieldViews, type ChainKindKey } from '../../chains/index.js';
import { blobScheduleFor } from '../../config/blob-schedule.js';
import type { ChainStatus } from '../../db/queries/chains.js';
import type { BlockObject, SingleBlockObject } from '../schemas/blocks.js';
import { addressView } from './address.js';
import { checksum } from './checksum.js';
import { burntFeesPercentage, gasTargetPercentage, gasUsedPercentage } from './block-percentages.js';
import { blobGasPrice } from './blob-fee.js';
import { isoTimestamp } from './timestamp.js';
import { headerElasticity } from '../../evm/header-fee-params.js';

const decimal = (value: bigint | null): string | null => (value === null ? null : value.toString());

/**
 * What the block object shows of the stored block row alone: every field but `type` (a reorg
 * flips it), `miner` (its address decorations change), `gas_target_percentage` (the chain's
 * elasticity is a setting) and the chain kinds' properties (their settlement changes). The
 * blocks-validated page keeps it rendered (block-page-json.ts); the other fields are added per
 * request.
 */
export function storedBlockFields(b: PageBlock) {
  const transactionsCount = b.transactionsCount;
  return {
    hash: b.hash,
    height: Number(b.number),
    parent_hash: b.parentHash,
    nonce: b.nonce,
    timestamp: isoTimestamp(b.timestamp),
    size: Number(b.size),
    difficulty: b.difficulty.toString(),
    total_difficulty: decimal(b.totalDifficulty),
    gas_limit: b.gasLimit.toString(),
    gas_used: b.gasUsed.toString(),
    // the reference's decimal arithmetic, so the floats match its responses to the last bit
    gas_used_percentage: gasUsedPercentage(b.gasUsed, b.gasLimit),
    base_fee_per_gas: decimal(b.baseFeePerGas),
    burnt_fees: b.burntFees.toString(),
    burnt_fees_percentage: burntFeesPercentage(b.burntFees, b.transactionFees),
    priority_fee: b.priorityFee.toString(),
    transaction_fees: b.transactionFees.toString(),
    transactions_count: transactionsCount,
    // the reference sends its current and older names side by side; so do we (recordings 2024–2025)
    transaction_count: transactionsCount,
    tx_count: transactionsCount,
    tx_fees: b.transactionFees.toString(),
    internal_transactions_count: b.internalTransactionsCount,
    // a header without a withdrawals list (before Shanghai, most L2s) had none: 0, as the reference counts
    withdrawals_count: b.withdrawalsCount ?? 0,
    is_pending_update: false,
    rewards: b.rewards.map((r) => ({ reward: r.reward.toString(), type: r.type, address_hash: checksum(r.address) })),
    uncles_hashes: b.uncleHashes.map((hash) => ({ hash })),
    blob_gas_used: decimal(b.blobGasUsed),
    excess_blob_gas: decimal(b.excessBlobGas),
    blob_transactions_count: b.blobTransactionsCount,
    blob_transaction_count: b.blobTransactionsCount,
    blob_tx_count: b.blobTransactionsCount,
  } satisfies Omit<BlockObject, ChangingBlockField>;
}

/** The block object's fields that a stored block row does not fix (storedBlockFields). */
export type ChangingBlockField = 'type' | 'miner' | 'gas_target_percentage' | ChainKindKey;

/**
 * gas_target_percentage: the reference's decimal arithmetic over the elasticity the block's header
 * names (OP stack since Holocene: header-fee-params.ts), else the chain's setting.
 */
export function gasTargetOf(b: Pick<PageBlock, 'gasUsed' | 'gasLimit' | 'chainFields'>, elasticity: number): number {
  return gasTargetPercentage(b.gasUsed, b.gasLimit, BigInt(headerElasticity(b.chainFields) ?? elasticity));
}

export function blockView({ block: b, miner, kinds }: ValidatedBlock, elasticity: number): BlockObject {
  return {
    ...storedBlockFields(b),
    type: blockType(b),
    miner: addressView(miner),
    gas_target_percentage: gasTargetOf(b, elasticity),
    ...chainFieldViews(b.chainFields, kinds),
  };
}

/** The single-block route's reward labels; the list keeps the stored kind ("validator"), as the reference does. */
const REWARD_LABELS: Readonly<Record<string, string>> = {
  validator: 'Miner Reward',
  uncle: 'Uncle Reward',
  emission_funds: 'Emission Reward',
};

/** `GET /blocks/{number or hash}`: the block object with the single-block extras. */
export function singleBlockView(block: ValidatedBlock, chain: Pick<ChainStatus, 'chainId' | 'elasticity' | 'blobSchedule'>): SingleBlockObject {
  const b = block.block;
  const item = blockView(block, chain.elasticity);
  const price = blobGasPrice(b.excessBlobGas, b.timestamp, blobScheduleFor(chain.chainId, chain.blobSchedule));
  return {
    ...item,
    rewards: item.rewards.map((r) => ({ ...r, type: REWARD_LABELS[r.type] ?? r.type })),
    blob_gas_price: decimal(price),
    burnt_blob_fees: ((b.blobGasUsed ?? 0n) * (price ?? 0n)).toString(),
  };
}

export function blocksNextPageParams(lastNumber: bigint, itemsCount: number, key: string | undefined) {
  return { block_number: Number(lastNumber), items_count: itemsCount, ...(key !== undefined ? { key } : {}) };
}
