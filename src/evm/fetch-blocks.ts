/**
 * Blocks with full transactions and all their receipts. Receipts come from one
 * `eth_getBlockReceipts` per block where the node has it (detected once per chain), otherwise
 * from one `eth_getTransactionReceipt` per transaction; the batching transport packs either into
 * few HTTP exchanges. Receipts carry the logs, so nothing else needs fetching for a block.
 *
 * A null answer means the node does not have the block yet (or a load-balanced backend lags):
 * it is polled until it appears, never skipped, since a skipped block would be a hole in the index.
 */
import type { Hex } from '../db/rows.js';
import { receiptsMismatch } from './block-row.js';
import { detectOnce } from '../rpc/capabilities.js';
import pLimit from 'p-limit';
import { isMethodNotSupported } from '../rpc/classify-failure.js';
import { BlockNotAvailableError } from '../rpc/errors.js';
import { askUntilRight, type Asked } from './ask-until-right.js';
import type { BlockRef, RpcClient } from '../rpc/client.js';
import type { RpcBlock, RpcReceipt } from '../rpc/types.js';

export interface BlockWithReceipts {
  block: RpcBlock;
  /** in transaction order */
  receipts: RpcReceipt[];
}

export interface FetchBlocksOptions {
  signal?: AbortSignal;
  /** wait between polls for a block the node does not have yet */
  pollIntervalMs?: number;
  /** give up on a missing block after this long; by default wait forever */
  maxWaitMs?: number;
  /** blocks in flight at once */
  concurrency?: number;
}

/**
 * Whether the chain's node serves eth_getBlockReceipts, probed once per chain. The probe asks
 * for the latest block, which every node has (a block being indexed may not exist yet, and some
 * nodes answer that with an error rather than null). Only a "method not supported" answer means
 * no; other failures propagate and the probe repeats next time.
 */
export function supportsBlockReceipts(rpc: RpcClient, probeBlock: BlockRef = 'latest'): Promise<boolean> {
  return detectOnce(rpc, 'eth_getBlockReceipts', async () => {
    try {
      await rpc.getBlockReceipts(probeBlock);
      return true;
    } catch (error) {
      if (!isMethodNotSupported(error)) throw error;
      rpc.logger.info({ chainId: rpc.chainId }, 'eth_getBlockReceipts unsupported; fetching receipts per transaction');
      return false;
    }
  });
}

function transactionHashes(block: RpcBlock): Hex[] {
  return block.transactions.map((tx) => (typeof tx === 'string' ? tx : tx.hash));
}

async function receiptsPerTransaction(rpc: RpcClient, block: RpcBlock, signal?: AbortSignal): Promise<RpcReceipt[] | null> {
  const receipts = await Promise.all(transactionHashes(block).map((hash) => rpc.getTransactionReceipt(hash, { signal })));
  return receipts.some((r) => r === null) ? null : (receipts as RpcReceipt[]);
}

function byTransactionIndex(receipts: RpcReceipt[]): RpcReceipt[] {
  return [...receipts].sort((a, b) => Number(BigInt(a.transactionIndex ?? '0x0') - BigInt(b.transactionIndex ?? '0x0')));
}

export async function fetchBlockWithReceipts(
  rpc: RpcClient,
  blockNumber: bigint,
  options: FetchBlocksOptions = {},
): Promise<BlockWithReceipts> {
  const { signal, pollIntervalMs = 1_000, maxWaitMs = Number.POSITIVE_INFINITY } = options;
  const useBlockReceipts = await supportsBlockReceipts(rpc);
  const ask = async (): Promise<Asked<BlockWithReceipts>> => {
    // Block and block receipts are requested together so that they share one HTTP batch.
    const [block, blockReceipts] = await Promise.all([
      rpc.getBlock(blockNumber, true, { signal }),
      useBlockReceipts ? rpc.getBlockReceipts(blockNumber, { signal }) : null,
    ]);
    if (block === null) return { problem: 'block not available yet' };
    // A block without transactions has no receipts, whatever the node says of them: some nodes
    // and relays answer null there (as a load-balanced backend behind the others does), which
    // would be waited on for ever.
    const receipts =
      block.transactions.length === 0 ? [] : useBlockReceipts ? blockReceipts : await receiptsPerTransaction(rpc, block, signal);
    if (receipts === null) return { problem: 'receipts not available yet' };
    // Block and receipts can straddle a reorg; fetching both again resolves it.
    const mismatch = receiptsMismatch(block, receipts);
    return mismatch === null ? { right: { block, receipts: byTransactionIndex(receipts) } } : { problem: mismatch };
  };
  return askUntilRight(ask, {
    signal,
    pollIntervalMs,
    maxWaitMs,
    what: `fetching block ${blockNumber}`,
    onRetry: (attempt, problem) => rpc.logger.debug({ chainId: rpc.chainId, block: blockNumber.toString(), attempt, problem }, 'refetching block'),
    giveUp: (problem, waited) => {
      throw new BlockNotAvailableError(blockNumber, waited, problem);
    },
  });
}

/** Blocks `from`..`to` inclusive, in ascending order. */
export async function fetchBlocksWithReceipts(
  rpc: RpcClient,
  from: bigint,
  to: bigint,
  options: FetchBlocksOptions = {},
): Promise<BlockWithReceipts[]> {
  if (to < from) return [];
  const limit = pLimit(options.concurrency ?? 10);
  return Promise.all(Array.from({ length: Number(to - from + 1n) }, (_, i) => limit(() => fetchBlockWithReceipts(rpc, from + BigInt(i), options))));
}
