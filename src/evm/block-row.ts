/**
 * Raw node JSON (block, its receipts, optionally its trace summary) → BlockRow. Pure: no I/O,
 * so it can be checked against recorded chain data field by field.
 *
 * Fee fields follow the reference explorer (see spec/COMPATIBILITY.md, "Block object"):
 *   transaction_fees = Σ receipt.gasUsed × effective gas price
 *   burnt_fees       = block.gasUsed × baseFee                      (0 without base fee)
 *   priority_fee     = Σ receipt.gasUsed × min(maxFee − baseFee, maxPriorityFee)
 *                      with the gas price standing in for missing fields (0 without base fee)
 */
import type { Hex } from '../db/rows.js';
import type { BlockRow, Reward } from '../db/model/block.js';
import { InconsistentChainDataError } from '../rpc/errors.js';
import { lowerHex, padHex } from './hex.js';
import { blockProducerOf, type BlockProducer } from './block-producer.js';
import { parseOptionalQuantity, parseQuantity } from '../rpc/quantity.js';
import type { RpcBlock, RpcReceipt, RpcTransaction } from '../rpc/types.js';
import { REWARD_TYPE, type BlockTraceSummary } from './traces.js';

export interface BlockRowOptions {
  chainId: number;
  /** whose block it is: the header's `miner`, or its Clique seal's signer (block-producer.ts); default `miner` */
  blockProducer?: BlockProducer;
}

export interface BlockFees {
  transactionFees: bigint;
  burntFees: bigint;
  priorityFee: bigint;
}

/** A block's fees and, of its transaction fees, the part paid for data on a parent chain (never the miner's). */
export interface PaidFees extends BlockFees {
  parentChainFees: bigint;
}

export type BlockHeaderFields = Pick<
  BlockRow,
  | 'number'
  | 'hash'
  | 'parentHash'
  | 'nonce'
  | 'timestamp'
  | 'miner'
  | 'size'
  | 'difficulty'
  | 'totalDifficulty'
  | 'gasLimit'
  | 'gasUsed'
  | 'baseFeePerGas'
  | 'transactionsCount'
  | 'withdrawalsCount'
  | 'uncleHashes'
  | 'blobGasUsed'
  | 'excessBlobGas'
  | 'blobTransactionsCount'
>;

function transactionHash(tx: RpcTransaction | Hex): string {
  return (typeof tx === 'string' ? tx : tx.hash).toLowerCase();
}

/** Priority fee per gas of one transaction, never negative. */
function tipPerGas(tx: RpcTransaction | undefined, receipt: RpcReceipt, gasPrice: bigint | null, baseFee: bigint): bigint {
  const price = gasPrice ?? 0n;
  const maxFee = parseOptionalQuantity(tx?.maxFeePerGas) ?? price;
  const maxPriority = parseOptionalQuantity(tx?.maxPriorityFeePerGas) ?? price;
  if (maxFee === 0n) return 0n;
  let tip = maxFee - baseFee < maxPriority ? maxFee - baseFee : maxPriority;
  // What the sender actually paid bounds the tip. On Ethereum this changes nothing (effective
  // price = baseFee + the tip above); on Arbitrum, which ignores priority fees, it is what makes
  // the priority fee 0 instead of the offered tip.
  const effective = parseOptionalQuantity(receipt.effectiveGasPrice);
  if (effective !== null && effective - baseFee < tip) tip = effective - baseFee;
  return tip > 0n ? tip : 0n;
}

function transactionsByHash(block: RpcBlock): Map<string, RpcTransaction | undefined> {
  const transactions = new Map<string, RpcTransaction | undefined>();
  for (const tx of block.transactions) transactions.set(transactionHash(tx), typeof tx === 'string' ? undefined : tx);
  return transactions;
}

/**
 * Why `receipts` are not exactly the receipts of `block`, or null when they are. Receipts fetched
 * separately from their block can belong to a block that replaced it in a reorg.
 */
export function receiptsMismatch(block: RpcBlock, receipts: readonly RpcReceipt[]): string | null {
  const blockHash = block.hash.toLowerCase();
  const transactions = transactionsByHash(block);
  if (receipts.length !== transactions.size) {
    return `block ${blockHash}: ${transactions.size} transactions but ${receipts.length} receipts`;
  }
  for (const receipt of receipts) {
    const hash = receipt.transactionHash.toLowerCase();
    if (receipt.blockHash.toLowerCase() !== blockHash || !transactions.has(hash)) {
      return `receipt of ${hash} does not belong to block ${blockHash}`;
    }
  }
  return null;
}

/**
 * Fee totals of a block; `receipts` must be exactly the block's (see receiptsMismatch).
 *
 * What the transactions paid: their gas at its effective price, and a rollup's data fee on its
 * parent chain where the receipt names one (`l1Fee`: OP stack, Scroll, Mantle), which the sender
 * pays beside the gas and which was most of an OP user's fee left out before (OP-stack review).
 * The base fee counts on the gas that paid it: a transaction whose price is below the base fee
 * paid its price (an OP-stack deposit pays nothing on L2, yet its gas is in the block's
 * `gasUsed`: block gas × base fee made `burnt_fees` 150 % of the fees paid). On Ethereum, where
 * every price covers the base fee, this is the block's gas × the base fee, the reference's figure.
 */
export function computeBlockFees(block: RpcBlock, receipts: readonly RpcReceipt[]): PaidFees {
  const mismatch = receiptsMismatch(block, receipts);
  if (mismatch !== null) throw new InconsistentChainDataError(mismatch);
  const transactions = transactionsByHash(block);
  const baseFee = parseOptionalQuantity(block.baseFeePerGas);
  let transactionFees = 0n;
  let priorityFee = 0n;
  let burntFees = 0n;
  let parentChainFees = 0n;
  for (const receipt of receipts) {
    const tx = transactions.get(receipt.transactionHash.toLowerCase());
    const gasUsed = parseQuantity(receipt.gasUsed);
    const gasPrice = parseOptionalQuantity(receipt.effectiveGasPrice) ?? parseOptionalQuantity(tx?.gasPrice);
    if (gasPrice !== null) transactionFees += gasUsed * gasPrice;
    parentChainFees += parseOptionalQuantity(receipt.l1Fee) ?? 0n;
    if (baseFee === null) continue;
    priorityFee += gasUsed * tipPerGas(tx, receipt, gasPrice, baseFee);
    burntFees += gasUsed * (gasPrice !== null && gasPrice < baseFee ? gasPrice : baseFee);
  }
  return { transactionFees: transactionFees + parentChainFees, burntFees, priorityFee, parentChainFees };
}

/**
 * Fields that come from the header alone (no receipts, no traces). `miner` is the block's
 * producer (block-producer.ts): a chain whose blocks name no miner (null or absent; some rollups'
 * sequencers) has its blocks validated by the zero address, as refusing them stopped the chain
 * for good (L2 review).
 */
export function blockHeaderFields(block: RpcBlock, producer: BlockProducer = 'miner'): BlockHeaderFields {
  return {
    number: parseQuantity(block.number),
    hash: lowerHex(block.hash),
    parentHash: lowerHex(block.parentHash),
    nonce: padHex(block.nonce ? parseQuantity(block.nonce) : 0n, 8),
    timestamp: parseQuantity(block.timestamp),
    miner: blockProducerOf(block, producer),
    size: block.size === undefined ? 0n : parseQuantity(block.size),
    difficulty: block.difficulty === undefined ? 0n : parseQuantity(block.difficulty),
    totalDifficulty: parseOptionalQuantity(block.totalDifficulty),
    gasLimit: parseQuantity(block.gasLimit),
    gasUsed: parseQuantity(block.gasUsed),
    baseFeePerGas: parseOptionalQuantity(block.baseFeePerGas),
    transactionsCount: block.transactions.length,
    withdrawalsCount: block.withdrawals ? block.withdrawals.length : null,
    uncleHashes: (block.uncles ?? []).map(lowerHex),
    blobGasUsed: parseOptionalQuantity(block.blobGasUsed),
    excessBlobGas: parseOptionalQuantity(block.excessBlobGas),
    blobTransactionsCount: blobTransactionsCount(block),
  };
}

const BLOB_TRANSACTION_TYPE = 3n;

/** Type-3 (EIP-4844) transactions; null when the block lists only transaction hashes. */
function blobTransactionsCount(block: RpcBlock): number | null {
  let count = 0;
  for (const tx of block.transactions) {
    if (typeof tx === 'string') return null;
    if (tx.type !== undefined && parseQuantity(tx.type) === BLOB_TRANSACTION_TYPE) count += 1;
  }
  return count;
}

/**
 * The block's reward entries: what each beneficiary was paid for it.
 *
 * Where the node reports rewards in its traces (proof of work; AuRa chains with a reward
 * contract), the trace gives only the newly minted amount: the miner's `validator` entry also
 * gets what the block's transactions paid it, Σ gasUsed × effective gas price − the burnt base
 * fee (= the priority fee), as the reference explorer adds the block's gas payment to the
 * miner's trace reward. The reference adds Σ gasUsed × gasPrice without taking the burnt part
 * off, which differs only on proof-of-work blocks with a base fee (Ethereum 12,965,000 to
 * 15,537,393), where the miner never received the burnt part (docs/COMPATIBILITY.md).
 *
 * Without reward traces (proof of stake, L2s, nodes without tracing): one `validator` entry for
 * the miner equal to the priority fee, as the reference shows for Ethereum after the merge.
 */
export function blockRewards(traceRewards: readonly Reward[] | null, miner: Hex, fees: BlockFees & Partial<PaidFees>): Reward[] {
  const earnedFromGas = fees.transactionFees - (fees.parentChainFees ?? 0n) - fees.burntFees;
  if (traceRewards === null || traceRewards.length === 0) {
    return [{ type: REWARD_TYPE.validator, reward: fees.priorityFee, address: miner }];
  }
  const rewards = traceRewards.map((r) => ({ ...r }));
  const minerReward = rewards.find((r) => r.type === REWARD_TYPE.validator && r.address === miner);
  if (minerReward) minerReward.reward += earnedFromGas;
  return rewards;
}

/** The block's row as every EVM chain has it; a chain kind's extra fields are added by the caller. */
export type EvmBlockRow = Omit<BlockRow, 'chainFields'>;

export function buildBlockRow(
  block: RpcBlock,
  receipts: readonly RpcReceipt[],
  traces: Pick<BlockTraceSummary, 'rewards' | 'internalTransactionsCount'> | null,
  options: BlockRowOptions,
): EvmBlockRow {
  const header = blockHeaderFields(block, options.blockProducer);
  const paid = computeBlockFees(block, receipts);
  const { parentChainFees: _parentChainFees, ...fees } = paid;
  return {
    chainId: options.chainId,
    ...header,
    ...fees,
    internalTransactionsCount: traces?.internalTransactionsCount ?? null,
    // paid to the producer: a Clique chain's client pays the tips to the seal's signer, not to the header's 0x0
    rewards: blockRewards(traces?.rewards ?? null, header.miner, paid),
    consensus: true,
    isUncle: false,
    headerOnly: false,
  };
}

/**
 * An uncle's row, from its header alone (eth_getUncleByBlockHashAndIndex): not part of the
 * chain, so none of its transactions were executed: no fees, no transaction count (the node
 * lists none), no traces. Its miner's reward is paid by the including block, whose `uncle`
 * reward entry it is; the uncle's own row has none, as in the reference.
 */
export function buildUncleRow(uncle: RpcBlock, options: BlockRowOptions): EvmBlockRow {
  return {
    chainId: options.chainId,
    ...blockHeaderFields({ ...uncle, transactions: [] }, options.blockProducer),
    transactionFees: 0n,
    burntFees: 0n,
    priorityFee: 0n,
    internalTransactionsCount: null,
    rewards: [],
    consensus: false,
    isUncle: true,
    headerOnly: true,
  };
}
