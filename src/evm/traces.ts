/**
 * Block traces, for the two block fields only traces can give: the protocol rewards of
 * proof-of-work blocks and the internal transaction count.
 *
 * Nodes offer either Parity-style `trace_block` (Erigon, Nethermind, Reth, OpenEthereum, anvil),
 * which also lists rewards, or geth's `debug_traceBlockByNumber` with the callTracer, which does
 * not. Which one works is detected once per chain.
 */
import type { Reward } from '../db/model/block.js';
import { detectOnce } from '../rpc/capabilities.js';
import { isMethodNotSupported } from '../rpc/classify-failure.js';
import { lowerHex } from './hex.js';
import type { Hex } from '../db/rows.js';
import { parseQuantity } from '../rpc/quantity.js';
import { blockParam, type RequestOptions, type RpcClient } from '../rpc/client.js';
import type { RpcCallFrame, RpcTraceBlockEntry } from '../rpc/types.js';
import { RpcError } from '../rpc/errors.js';

export interface BlockTraceSummary {
  /** null when the trace output has no reward entries (proof of stake, L2s, geth tracing) */
  rewards: Reward[] | null;
  /** null when unknown (a transaction's trace failed) */
  internalTransactionsCount: number | null;
  /** transactions the answer has a top-level trace of: fewer than the block's means it is not the whole block */
  transactionTraces: number;
  /** the block hashes the answer's entries name (trace_block's do; the callTracer's do not) */
  blockHashes: Hex[];
}

export type TraceMethod = 'trace_block' | 'debug_traceBlockByNumber';

/**
 * Reward kinds as the reference explorer stores them (its `block_rewards.address_type` enum),
 * which is also what its block lists show. "Miner Reward"/"Uncle Reward" are display labels of
 * its single-block page, derived from these.
 */
export const REWARD_TYPE = {
  validator: 'validator',
  uncle: 'uncle',
  emissionFunds: 'emission_funds',
} as const;

function rewardType(rewardKind: string, rewardIndex: number): string | null {
  switch (rewardKind) {
    case 'block':
      return REWARD_TYPE.validator;
    case 'uncle':
      return REWARD_TYPE.uncle;
    // POA chains (AuRa with a block-reward contract) report every beneficiary as "external":
    // the second one is the emission fund, the others validators.
    case 'external':
      return rewardIndex === 1 ? REWARD_TYPE.emissionFunds : REWARD_TYPE.validator;
    default:
      return null;
  }
}

/** Sums rewards of the same kind to the same address (two uncles by one miner: one row). */
function mergeRewards(rewards: Reward[]): Reward[] {
  const merged = new Map<string, Reward>();
  for (const reward of rewards) {
    const key = `${reward.type}:${reward.address}`;
    const known = merged.get(key);
    if (known) known.reward += reward.reward;
    else merged.set(key, { ...reward });
  }
  return [...merged.values()];
}

/**
 * Internal transactions as the reference counts them: every trace except a transaction's
 * top-level call (a top-level create is a contract creation and counts).
 */
function isInternal(type: string, depth: number): boolean {
  return depth > 0 || type.toLowerCase() !== 'call';
}

export function summarizeTraceBlock(entries: readonly RpcTraceBlockEntry[]): BlockTraceSummary {
  const rewards: Reward[] = [];
  let internal = 0;
  let rewardIndex = 0;
  let transactionTraces = 0;
  const blockHashes = new Set<Hex>();
  for (const entry of entries) {
    if (typeof entry.blockHash === 'string') blockHashes.add(lowerHex(entry.blockHash));
    if (entry.type === 'reward') {
      const type = rewardType(entry.action.rewardType ?? '', rewardIndex++);
      const { author, value } = entry.action;
      if (type !== null && author !== undefined && value !== undefined) {
        rewards.push({ type, address: lowerHex(author), reward: parseQuantity(value) });
      }
      continue;
    }
    if (entry.traceAddress.length === 0) transactionTraces += 1;
    if (isInternal(entry.type, entry.traceAddress.length)) internal += 1;
  }
  return { rewards: rewards.length > 0 ? mergeRewards(rewards) : null, internalTransactionsCount: internal, transactionTraces, blockHashes: [...blockHashes] };
}

function countFrames(frame: RpcCallFrame, depth: number): number {
  const own = isInternal(frame.type.toLowerCase().startsWith('create') ? 'create' : 'call', depth) ? 1 : 0;
  return own + (frame.calls ?? []).reduce((sum, child) => sum + countFrames(child, depth + 1), 0);
}

/** `debug_traceBlockByNumber` with the callTracer: one frame tree per transaction. */
export function summarizeCallTraces(results: readonly unknown[]): BlockTraceSummary {
  let internal = 0;
  const unknown = { rewards: null, internalTransactionsCount: null, transactionTraces: results.length, blockHashes: [] };
  for (const item of results) {
    // geth wraps each tree as {txHash, result} (or {error} when tracing that tx failed); some
    // nodes return bare frames.
    const record = item as { result?: RpcCallFrame; error?: unknown; type?: string };
    const frame = record.result ?? (typeof record.type === 'string' ? (record as RpcCallFrame) : undefined);
    if (!frame) return unknown;
    internal += countFrames(frame, 0);
  }
  return { ...unknown, internalTransactionsCount: internal };
}

/**
 * Why a trace answer is not of this block, or null when it may be: fewer transactions traced
 * than the block has (a load-balanced provider's backend that has not reached the block answers
 * `[]`), or entries naming another block (a backend on a sibling). Each would be stored as a
 * wrong count for good (L2-provider review: 111 of 700 blocks with a 30 % rate of `[]`).
 */
export function tracesMismatch(summary: BlockTraceSummary, block: { hash: Hex; transactions: number }): string | null {
  if (summary.transactionTraces < block.transactions) {
    return `${summary.transactionTraces} of the block's ${block.transactions} transactions traced`;
  }
  const other = summary.blockHashes.find((h) => h !== block.hash.toLowerCase());
  return other === undefined ? null : `traces of block ${other}, not ${block.hash}`;
}

const CALL_TRACER = { tracer: 'callTracer' } as const;

function traceMethodProbe(rpc: RpcClient, block: bigint): () => Promise<TraceMethod | null> {
  return async () => {
    try {
      await rpc.request('trace_block', [blockParam(block)]);
      return 'trace_block';
    } catch (error) {
      if (!isMethodNotSupported(error)) throw error;
    }
    try {
      await rpc.request('debug_traceBlockByNumber', [blockParam(block), CALL_TRACER]);
      return 'debug_traceBlockByNumber';
    } catch (error) {
      if (!isMethodNotSupported(error)) throw error;
    }
    rpc.logger.info({ chainId: rpc.chainId }, 'node serves no block traces: no reward traces, no internal transaction counts');
    return null;
  };
}

/**
 * Which trace method the chain's node serves, probed once with `probeBlock` (a block the node
 * has; a failure other than "unsupported method" is thrown and the probe repeats next time).
 */
export function detectTraceMethod(rpc: RpcClient, probeBlock: bigint): Promise<TraceMethod | null> {
  return detectOnce(rpc, 'trace-method', traceMethodProbe(rpc, probeBlock));
}

/**
 * A trace answer that is a list, or a typed error naming the method and the block (a node that
 * answered null was logged as "entries is not iterable": operator review).
 */
function traceList(answer: unknown, method: TraceMethod, block: bigint): unknown[] {
  if (Array.isArray(answer)) return answer;
  throw new RpcError(`${method}: the node answered ${answer === null ? 'null' : typeof answer} for block ${block}, not a list of traces`, { method });
}

/**
 * Rewards and internal transaction count of one block; null when the node has no tracing. The
 * answer is not checked against the block here (it is asked in the block's batch, before the
 * block is known): tracesMismatch is, by the caller.
 */
export async function fetchBlockTraceSummary(rpc: RpcClient, block: bigint, options: RequestOptions = {}): Promise<BlockTraceSummary | null> {
  const method = await detectTraceMethod(rpc, block);
  switch (method) {
    case 'trace_block':
      return summarizeTraceBlock(traceList(await rpc.request<unknown>('trace_block', [blockParam(block)], options), method, block) as RpcTraceBlockEntry[]);
    case 'debug_traceBlockByNumber':
      return summarizeCallTraces(traceList(await rpc.request<unknown>('debug_traceBlockByNumber', [blockParam(block), CALL_TRACER], options), method, block));
    case null:
      return null;
  }
}
