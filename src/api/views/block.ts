import type { ValidatedBlock } from '../../db/queries/blocks.js';
import { blockType } from '../../db/model/block.js';
import { chainFieldViews } from '../../chains/index.js';
import { blobScheduleFor } from '../../config/blob-schedule.js';
import type { ChainStatus } from '../../db/queries/chains.js';
import type { BlockObject, SingleBlockObject } from '../schemas/blocks.js';
import { addressView } from './address.js';
import { checksum } from './checksum.js';
import { burntFeesPercentage, gasTargetPercentage, gasUsedPercentage } from './block-percentages.js';
import { blobGasPrice } from './blob-fee.js';

/** ISO 8601 UTC with six fractional digits, as the reference prints it. */
export function isoTimestamp(seconds: bigint): string {
  // toISOString ends in ".mmmZ"; the reference prints microseconds
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, -1)}000Z`;
}

const decimal = (value: bigint | null): string | null => (value === null ? null : value.toString());

export function blockView({ block: b, miner, kinds }: ValidatedBlock, elasticity: number): BlockObject {
  const transactionsCount = b.transactionsCount;
  return {
    hash: b.hash,
    height: Number(b.number),
    parent_hash: b.parentHash,
    nonce: b.nonce,
    timestamp: isoTimestamp(b.timestamp),
    type: blockType(b),
    miner: addressView(miner),
    size: Number(b.size),
    difficulty: b.difficulty.toString(),
    total_difficulty: decimal(b.totalDifficulty),
    gas_limit: b.gasLimit.toString(),
    gas_used: b.gasUsed.toString(),
    // the reference's decimal arithmetic, so the floats match its responses to the last bit
    gas_used_percentage: gasUsedPercentage(b.gasUsed, b.gasLimit),
    gas_target_percentage: gasTargetPercentage(b.gasUsed, b.gasLimit, BigInt(elasticity)),
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

export function blocksNextPageParams(last: ValidatedBlock, itemsCount: number, key: string | undefined) {
  return { block_number: Number(last.block.number), items_count: itemsCount, ...(key !== undefined ? { key } : {}) };
}
