/**
 * Raw JSON-RPC shapes as nodes send them (hex strings, not decoded). Only the fields this layer
 * reads are typed; nodes differ (Parity's `author`, Arbitrum's `l1BlockNumber`, hash-only
 * transaction lists), so anything a node may omit is optional.
 */
import type { Hex } from '../db/rows.js';

export type BlockTag = 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized';

export interface RpcTransaction {
  hash: Hex;
  type?: Hex;
  from?: Hex;
  to?: Hex | null;
  gasPrice?: Hex | null;
  maxFeePerGas?: Hex | null;
  maxPriorityFeePerGas?: Hex | null;
  [field: string]: unknown;
}

export interface RpcWithdrawal {
  index: Hex;
  validatorIndex: Hex;
  address: Hex;
  amount: Hex;
}

export interface RpcBlock {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  nonce?: Hex | null;
  timestamp: Hex;
  miner?: Hex;
  /** Parity/OpenEthereum name for the miner */
  author?: Hex;
  size?: Hex;
  difficulty?: Hex;
  totalDifficulty?: Hex | null;
  gasLimit: Hex;
  gasUsed: Hex;
  baseFeePerGas?: Hex | null;
  /** full objects when fetched with `true`, hashes otherwise */
  transactions: (RpcTransaction | Hex)[];
  uncles?: Hex[];
  withdrawals?: RpcWithdrawal[];
  /** EIP-4844 (Cancun) header fields */
  blobGasUsed?: Hex;
  excessBlobGas?: Hex;
  // Arbitrum Nitro extras
  l1BlockNumber?: Hex;
  sendCount?: Hex;
  sendRoot?: Hex;
  [field: string]: unknown;
}

export interface RpcLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex | null;
  blockHash: Hex | null;
  transactionHash: Hex | null;
  transactionIndex?: Hex | null;
  logIndex: Hex | null;
  removed?: boolean;
}

export interface RpcReceipt {
  transactionHash: Hex;
  transactionIndex?: Hex;
  blockHash: Hex;
  blockNumber: Hex;
  gasUsed: Hex;
  effectiveGasPrice?: Hex | null;
  /** a rollup's data fee on its parent chain, paid beside the gas (OP stack, Scroll, Mantle) */
  l1Fee?: Hex | null;
  status?: Hex;
  logs: RpcLog[];
  [field: string]: unknown;
}

/** Parity/OpenEthereum/Erigon `trace_block` entry. */
export interface RpcTraceBlockEntry {
  type: 'call' | 'create' | 'suicide' | 'reward' | string;
  action: {
    rewardType?: string;
    author?: Hex;
    value?: Hex;
    callType?: string;
    [field: string]: unknown;
  };
  traceAddress: number[];
  transactionHash?: Hex | null;
  blockHash?: Hex;
  blockNumber?: number;
  [field: string]: unknown;
}

/** geth `callTracer` frame. */
export interface RpcCallFrame {
  type: string;
  calls?: RpcCallFrame[];
  [field: string]: unknown;
}

export interface RpcLogFilter {
  fromBlock: Hex;
  toBlock: Hex;
  address?: Hex | Hex[];
  topics?: (Hex | Hex[] | null)[];
}
