import type { ValidatedBlock } from '../../db/queries/blocks.js';
import { blockType } from '../../db/model/block.js';
import { chainFieldViews } from '../../chains/index.js';
import type { BlockObject } from '../schemas/blocks.js';
import { addressView } from './address.js';
import { checksum } from './checksum.js';
import { burntFeesPercentage, gasTargetPercentage, gasUsedPercentage } from './block-percentages.js';

/** ISO 8601 UTC with six fractional digits, as the reference prints it. */
export function isoTimestamp(seconds: bigint): string {
  // toISOString ends in ".mmmZ"; the reference prints microseconds
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, -1)}000Z`;
}

export function blockView({ block: b, miner }: ValidatedBlock, elasticity: number): BlockObject {
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
    total_difficulty: b.totalDifficulty === null ? null : b.totalDifficulty.toString(),
    gas_limit: b.gasLimit.toString(),
    gas_used: b.gasUsed.toString(),
    // the reference's decimal arithmetic, so the floats match its responses to the last bit
    gas_used_percentage: gasUsedPercentage(b.gasUsed, b.gasLimit),
    gas_target_percentage: gasTargetPercentage(b.gasUsed, b.gasLimit, BigInt(elasticity)),
    base_fee_per_gas: b.baseFeePerGas === null ? null : b.baseFeePerGas.toString(),
    burnt_fees: b.burntFees.toString(),
    burnt_fees_percentage: burntFeesPercentage(b.burntFees, b.transactionFees),
    priority_fee: b.priorityFee.toString(),
    transaction_fees: b.transactionFees.toString(),
    transactions_count: transactionsCount,
    transaction_count: transactionsCount,
    internal_transactions_count: b.internalTransactionsCount,
    withdrawals_count: b.withdrawalsCount,
    is_pending_update: false,
    rewards: b.rewards.map((r) => ({ reward: r.reward.toString(), type: r.type, address_hash: checksum(r.address) })),
    uncles_hashes: b.uncleHashes.map((hash) => ({ hash })),
    ...chainFieldViews(b.chainFields),
  };
}

export function blocksNextPageParams(last: ValidatedBlock, itemsCount: number, key: string | undefined) {
  return { block_number: Number(last.block.number), items_count: itemsCount, ...(key !== undefined ? { key } : {}) };
}
