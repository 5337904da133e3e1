/**
 * Ethereum block 508,110 (Frontier, 2015): the one place in ../shared/fixtures/real where a block
 * header and its reward traces come together, and the block has an uncle.
 *
 * Recorded (real, from a Parity node): the header with transaction hashes and its one uncle hash,
 * and its `trace_block` (one create, one plain call, a `block` reward of 5.15625 ETH and an
 * `uncle` reward of 3.75 ETH, both to 0x2a65…8226).
 *
 * Not recorded, so built here as STAND-INS (said so wherever they are used):
 * - the full transaction objects and the receipts. Their gas used is derived from the recording:
 *   the call moves value with no input and 0 gas left after the intrinsic 21,000, so it used
 *   21,000, and the create used the rest of the header's gasUsed. Their gas price is NOT known:
 *   50 gwei, the default of the era's clients, stands in for it.
 * - the uncle's header (`eth_getUncleByBlockHashAndIndex`). Its hash is the recorded uncle hash,
 *   its height 508,108 follows from the recorded uncle reward (6/8 of 5 ETH: depth 2), its miner
 *   is the recorded uncle-reward beneficiary; every other field is made up, so its hash does not
 *   verify against its fields.
 */
import type { Hex } from '../../src/db/rows.js';
import type { RpcBlock, RpcReceipt, RpcTraceBlockEntry, RpcTransaction } from '../../src/rpc/types.js';
import { fixtureResult } from './replay-rpc.js';

const DIR = 'ethereum-etl-block-508110';

/** The recorded header, transaction hashes only. */
export const recordedBlock = (): RpcBlock => fixtureResult<RpcBlock>(`${DIR}/web3_response.eth_getBlockByNumber_0x7c0ce_false.json`);
/** The recorded trace_block output. */
export const recordedTraces = (): RpcTraceBlockEntry[] => fixtureResult<RpcTraceBlockEntry[]>(`${DIR}/web3_response.trace_block_0x7c0ce.json`);

export const BLOCK_NUMBER = 508_110n;
/** miner of the block and of its uncle (recorded) */
export const MINER = '0x2a65aca4d5fc5b5c859090a6c34d164135398226' as Hex;
export const UNCLE_HASH = '0xb3749035a89f6295caa2c4137ca5604db9d0ca0a38cdfd6f1d8ef7eb3ae0ccb9' as Hex;
/** recorded in the trace: 5 + 5/32 ETH minted for the block, 6/8 × 5 ETH for the uncle */
export const MINTED_BLOCK_REWARD = 5_156_250_000_000_000_000n;
export const UNCLE_REWARD = 3_750_000_000_000_000_000n;

/** STAND-IN: the transactions' gas price is not in the recording. */
export const STAND_IN_GAS_PRICE = 50_000_000_000n;
const hex = (n: bigint): Hex => `0x${n.toString(16)}`;

/** Gas used per transaction, derived from the recorded trace and header (see above). */
function gasUsedPerTransaction(block: RpcBlock): bigint[] {
  const plainTransfer = 21_000n;
  return [BigInt(block.gasUsed) - plainTransfer, plainTransfer];
}

/** What the miner earned from gas with the stand-in gas price (no base fee in 2015). */
export const standInFees = (): bigint => BigInt(recordedBlock().gasUsed) * STAND_IN_GAS_PRICE;

/** STAND-IN full transaction objects: hash, from, to and value from the trace; the gas price made up. */
export function standInFullBlock(): RpcBlock {
  const block = recordedBlock();
  const calls = recordedTraces().filter((t) => t.type !== 'reward');
  const transactions: RpcTransaction[] = (block.transactions as Hex[]).map((hash, i) => {
    const action = calls.find((t) => t.transactionHash === hash)!.action as Record<string, Hex | undefined>;
    return {
      hash,
      blockHash: block.hash,
      blockNumber: block.number,
      transactionIndex: hex(BigInt(i)),
      from: action['from']!,
      to: action['to'] ?? null,
      value: action['value']!,
      gasPrice: hex(STAND_IN_GAS_PRICE),
    };
  });
  return { ...block, transactions };
}

/** STAND-IN receipts (gas used derived from the recording, gas price made up, no logs). */
export function standInReceipts(): RpcReceipt[] {
  const block = recordedBlock();
  const gasUsed = gasUsedPerTransaction(block);
  let cumulative = 0n;
  return (block.transactions as Hex[]).map((hash, i) => {
    cumulative += gasUsed[i]!;
    return {
      transactionHash: hash,
      transactionIndex: hex(BigInt(i)),
      blockHash: block.hash,
      blockNumber: block.number,
      gasUsed: hex(gasUsed[i]!),
      cumulativeGasUsed: hex(cumulative),
      effectiveGasPrice: hex(STAND_IN_GAS_PRICE),
      status: '0x1',
      logs: [],
    };
  });
}

/** STAND-IN uncle header, shaped as a Parity node answers eth_getUncleByBlockHashAndIndex. */
export function standInUncle(): RpcBlock {
  const block = recordedBlock();
  return {
    author: MINER,
    miner: MINER,
    hash: UNCLE_HASH,
    number: hex(BLOCK_NUMBER - 2n),
    parentHash: '0x1111111111111111111111111111111111111111111111111111111111111111',
    nonce: '0x0123456789abcdef',
    timestamp: hex(BigInt(block.timestamp) - 30n),
    difficulty: block.difficulty!,
    totalDifficulty: null,
    gasLimit: block.gasLimit,
    gasUsed: '0x0',
    size: '0x21b',
    transactions: [],
    uncles: [],
  };
}
