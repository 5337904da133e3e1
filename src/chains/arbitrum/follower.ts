/**
 * The Arbitrum kind's background task: follows the parent chain for one Arbitrum chain. Each step
 * reads a range of parent blocks' SequencerBatchDelivered (with SequencerBatchData) and
 * SendRootUpdated logs, resolves each batch's child block range from the calldata of the
 * transaction that posted it and each confirmation's child block from the child node, and writes
 * them with the parent block reached in one transaction (store.ts). Before each step the stored
 * tip is compared with the parent node's block at that height; a different hash rolls back to the
 * newest checkpoint the node still has, so a reorg leaves what a fresh follower would find.
 *
 * It runs beside the child's pipeline and never blocks it: RPC faults are retried by the client
 * (the same one the child uses, src/rpc/), and whatever else fails is logged and tried again.
 */
import { decodeEventLog, encodeEventTopics, encodeFunctionData, decodeFunctionResult, type Hex } from 'viem';
import type { Database } from '../../db/client.js';
import type { RpcClient } from '../../rpc/client.js';
import type { RpcBlock, RpcLog } from '../../rpc/types.js';
import { fetchLogs } from '../../rpc/get-logs.js';
import { parseQuantity } from '../../rpc/quantity.js';
import { sleep } from '../../rpc/backoff.js';
import { classifyFailure } from '../../rpc/classify-failure.js';
import { ConfigError } from '../../config/setting.js';
import { lowerHex } from '../../evm/hex.js';
import type { Logger } from '../../indexer/logger.js';
import type { IndexerMetrics } from '../../indexer/metrics.js';
import { outboxEventsAbi, rollupAbi, sequencerInboxEventsAbi, BatchDataLocation } from './abi.js';
import { batchDataContainer, decodeBatchCall } from './batch-data.js';
import type { ArbitrumSettlementConfig } from './config.js';
import {
  checkpointsBelow, parentChainOf, parentState, pruneCheckpoints, recordParentPoll, registerContracts, rollBackTo, writeStep,
  type ParentBlockRef, type StoredBatch, type StoredConfirmation,
} from './store.js';

export interface FollowerOptions {
  db: Database;
  chainId: number;
  settlement: ArbitrumSettlementConfig;
  parent: RpcClient;
  child: RpcClient;
  logger: Logger;
  pollIntervalMs: number;
  /** parent blocks per step */
  maxRange?: bigint;
  /** parent blocks behind the head whose checkpoints are kept for finding a reorg's ancestor */
  reorgDepth?: bigint;
  /** after a rollback has committed (batches and their ranges may be gone) */
  onRollBack?: () => void;
  metrics?: IndexerMetrics;
}

/** A log of a mined block: what eth_getLogs over a block range returns. */
type MinedLog = RpcLog & { blockNumber: Hex; blockHash: Hex; transactionHash: Hex; logIndex: Hex };
const isMined = (l: RpcLog): l is MinedLog => l.blockNumber !== null && l.blockHash !== null && l.transactionHash !== null && l.logIndex !== null;

const TOPICS = {
  delivered: encodeEventTopics({ abi: sequencerInboxEventsAbi, eventName: 'SequencerBatchDelivered' })[0],
  data: encodeEventTopics({ abi: sequencerInboxEventsAbi, eventName: 'SequencerBatchData' })[0],
  confirmed: encodeEventTopics({ abi: outboxEventsAbi, eventName: 'SendRootUpdated' })[0],
};

/** An answer that is no address: what an address without code answers (`0x`), or another contract. */
class NotAnAddressAnswer extends Error {}

async function readAddress(rpc: RpcClient, to: Hex, functionName: 'sequencerInbox' | 'outbox', signal: AbortSignal): Promise<Hex> {
  const data = await rpc.call(to, encodeFunctionData({ abi: rollupAbi, functionName }), 'latest', { signal });
  try {
    return lowerHex(decodeFunctionResult({ abi: rollupAbi, functionName, data })) as Hex;
  } catch (error) {
    throw new NotAnAddressAnswer(`${functionName}() answered ${data.slice(0, 74)}`, { cause: error });
  }
}

/**
 * Checks the parent chain's id (not the child's, and the one this chain was followed on before:
 * a changed `parentRpcUrls` must serve the same chain) and reads the SequencerInbox and Outbox
 * from the rollup.
 */
export async function connectParent(
  options: Pick<FollowerOptions, 'db' | 'chainId' | 'settlement' | 'parent'>,
  signal: AbortSignal,
): Promise<{ sequencerInbox: Hex; outbox: Hex; parentChainId: number }> {
  const { parent, settlement, chainId } = options;
  const parentChainId = await parent.getChainId({ signal });
  if (parentChainId === chainId) {
    throw new ConfigError(`chain ${chainId}: arbitrum.parentRpcUrls serve chain ${chainId} itself, not its parent chain`);
  }
  const before = await parentChainOf(options.db, chainId);
  if (before !== null && before !== parentChainId) {
    throw new ConfigError(`chain ${chainId}: arbitrum.parentRpcUrls serve chain id ${parentChainId}, but this chain settles on ${before}`);
  }
  try {
    return {
      parentChainId,
      sequencerInbox: await readAddress(parent, settlement.rollup, 'sequencerInbox', signal),
      outbox: await readAddress(parent, settlement.rollup, 'outbox', signal),
    };
  } catch (error) {
    // a revert, or an answer that is no address (an address without code answers 0x: a rollup
    // of another network, or a parent RPC of the wrong chain); a fault of the node is retried
    if (!(error instanceof NotAnAddressAnswer) && classifyFailure(error, 'eth_call').kind !== 'rpc-error') throw error;
    throw new ConfigError(
      `chain ${chainId}: ${settlement.rollup} on the parent chain (chain id ${parentChainId}) does not answer sequencerInbox() and outbox(): not a rollup contract there`,
    );
  }
}

export class ArbitrumFollower {
  private readonly maxRange: bigint;
  private readonly reorgDepth: bigint;
  private contracts: { sequencerInbox: Hex; outbox: Hex } | null = null;

  constructor(private readonly options: FollowerOptions) {
    this.maxRange = options.maxRange ?? 2_000n;
    this.reorgDepth = options.reorgDepth ?? 1_000n;
    // from 0, so that a rate over it exists before the first failure
    options.metrics?.parentStepFailures.inc(this.metricLabel, 0);
  }

  private get label() {
    return { chainId: this.options.chainId, task: 'arbitrum-settlement' };
  }

  private get metricLabel() {
    return { chain_id: String(this.options.chainId) };
  }

  /** Until aborted; a configuration error (wrong parent chain, not a rollup) ends it. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        if (this.contracts === null) {
          const found = await connectParent(this.options, signal);
          await registerContracts(this.options.db, this.options.chainId, found);
          // contracts other than the stored ones void what was stored
          this.options.onRollBack?.();
          this.contracts = found;
          this.options.logger.info({ ...this.label, ...found }, 'following the parent chain');
        }
        const progressed = await this.step(signal);
        if (!progressed) await sleep(this.options.pollIntervalMs, signal);
      } catch (error) {
        if (signal.aborted) break;
        if (error instanceof ConfigError) throw error;
        this.options.metrics?.parentStepFailures.inc(this.metricLabel);
        this.options.logger.error(
          { ...this.label, err: error instanceof Error ? error.message : String(error) },
          'parent chain step failed; retrying from the last committed parent block',
        );
        await sleep(2_000, signal).catch(() => undefined);
      }
    }
  }

  /** One step: reorg check, then one range of parent blocks. True when there may be more to do at once. */
  async step(signal: AbortSignal): Promise<boolean> {
    const { db, chainId, parent } = this.options;
    const contracts = this.contracts!;
    const head = await parent.getBlockNumber({ signal });
    const safe = await parent.getBlock('safe', false, { signal }).then(
      (b) => (b === null ? null : parseQuantity(b.number)),
      () => null, // a node without the tag: statuses stay as they are
    );
    await recordParentPoll(db, chainId, head, safe);
    this.options.metrics?.parentHeadBlock.set(this.metricLabel, Number(head));
    this.options.metrics?.parentPolledAt.set(this.metricLabel, Date.now() / 1000);
    const tip = (await parentState(db, chainId))?.tip ?? null;
    if (tip !== null && !(await this.stillCanonical(tip, signal))) {
      await this.rollBack(tip, signal);
      return true;
    }
    const from = tip === null ? this.options.settlement.parentStartBlock : tip.number + 1n;
    if (from > head) return false;
    const to = from + this.maxRange - 1n < head ? from + this.maxRange - 1n : head;
    const last = await parent.getBlock(to, false, { signal });
    if (last === null) return false;
    const fetched = await fetchLogs(
      parent,
      { fromBlock: from, toBlock: to, address: [contracts.sequencerInbox, contracts.outbox], topics: [[TOPICS.delivered!, TOPICS.data!, TOPICS.confirmed!]] },
      { signal },
    );
    if (!fetched.every(isMined)) return false;
    const logs = fetched.filter(isMined);
    // the step's middle: read, not yet written (the kill -9 test aims at this line)
    this.options.logger.debug({ ...this.label, from: from.toString(), to: to.toString(), logs: logs.length }, 'parent range fetched');
    const headers = await this.headersOf(logs, signal);
    const first = from === to ? last : await parent.getBlock(from, false, { signal });
    // the logs must be of the branch we stand on and of the blocks we read: else the parent is
    // reorganising under us, and the next step sees it at the tip
    if (first === null || (tip !== null && lowerHex(first.parentHash) !== tip.hash)) return false;
    if (logs.some((l) => headers.get(l.blockNumber)?.hash.toLowerCase() !== l.blockHash.toLowerCase())) return false;
    const batches = await this.batchesOf(logs, headers, contracts.sequencerInbox, signal);
    const confirmations = await this.confirmationsOf(logs, headers, contracts.outbox, signal);
    const reached: ParentBlockRef = { number: to, hash: lowerHex(last.hash) as Hex };
    await db.transaction(async (tx) => {
      await writeStep(tx, chainId, { batches, confirmations, reached });
      await pruneCheckpoints(tx, chainId, head - this.reorgDepth);
    });
    this.options.metrics?.parentIndexedBlock.set(this.metricLabel, Number(to));
    if (batches.length + confirmations.length > 0) {
      this.options.logger.info({ ...this.label, parentBlock: to.toString(), batches: batches.length, confirmations: confirmations.length }, 'settlement data');
    }
    return to < head;
  }

  private async stillCanonical(tip: ParentBlockRef, signal: AbortSignal): Promise<boolean> {
    const block = await this.options.parent.getBlock(tip.number, false, { signal });
    return block !== null && lowerHex(block.hash) === tip.hash;
  }

  /** Back to the newest checkpoint the parent node still has (none: from the start block). */
  private async rollBack(tip: ParentBlockRef, signal: AbortSignal): Promise<void> {
    const { db, chainId, parent } = this.options;
    let ancestor: ParentBlockRef | null = null;
    let below = tip.number;
    search: for (;;) {
      const candidates = await checkpointsBelow(db, chainId, below, 64);
      if (candidates.length === 0) break;
      for (const c of candidates) {
        const block = await parent.getBlock(c.number, false, { signal });
        if (block !== null && lowerHex(block.hash) === c.hash) {
          ancestor = c;
          break search;
        }
      }
      below = candidates[candidates.length - 1]!.number - 1n;
    }
    await db.transaction((tx) => rollBackTo(tx, chainId, ancestor));
    if (ancestor !== null) this.options.metrics?.parentIndexedBlock.set(this.metricLabel, Number(ancestor.number));
    this.options.onRollBack?.();
    this.options.logger.warn(
      { ...this.label, from: tip.number.toString(), to: ancestor === null ? 'start' : ancestor.number.toString() },
      'parent chain reorganised; settlement data rolled back',
    );
  }

  private async headersOf(logs: MinedLog[], signal: AbortSignal): Promise<Map<Hex, RpcBlock>> {
    const numbers = [...new Set(logs.map((l) => l.blockNumber))];
    const blocks = await Promise.all(numbers.map((n) => this.options.parent.getBlock(parseQuantity(n), false, { signal })));
    const headers = new Map<Hex, RpcBlock>();
    numbers.forEach((n, i) => {
      const block = blocks[i];
      if (block) headers.set(n, block);
    });
    return headers;
  }

  private async batchesOf(logs: MinedLog[], headers: Map<Hex, RpcBlock>, inbox: Hex, signal: AbortSignal): Promise<StoredBatch[]> {
    const shift = this.options.settlement.messagesToBlocksShift;
    const fromInbox = logs.filter((l) => l.address.toLowerCase() === inbox);
    const separateData = new Map<string, Hex>();
    for (const log of fromInbox) {
      if (log.topics[0] !== TOPICS.data) continue;
      const { args } = decodeEventLog({ abi: sequencerInboxEventsAbi, eventName: 'SequencerBatchData', topics: log.topics as [Hex, ...Hex[]], data: log.data });
      separateData.set(`${log.transactionHash}:${args.batchSequenceNumber}`, args.data);
    }
    const batches: StoredBatch[] = [];
    for (const log of fromInbox) {
      if (log.topics[0] !== TOPICS.delivered) continue;
      const { args } = decodeEventLog({ abi: sequencerInboxEventsAbi, eventName: 'SequencerBatchDelivered', topics: log.topics as [Hex, ...Hex[]], data: log.data });
      const tx = await this.options.parent.request<{ input: Hex } | null>('eth_getTransactionByHash', [log.transactionHash], { signal });
      const call = tx === null ? null : decodeBatchCall(tx.input);
      const counted = call !== null && call.prevMessageCount !== null && call.newMessageCount !== null;
      const data =
        args.dataLocation === BatchDataLocation.SeparateBatchEvent
          ? (separateData.get(`${log.transactionHash}:${args.batchSequenceNumber}`) ?? null)
          : (call?.data ?? null);
      batches.push({
        batchNumber: args.batchSequenceNumber,
        // an empty batch (no new messages) seals no block
        firstBlock: counted && call.newMessageCount! > call.prevMessageCount! ? call.prevMessageCount! + shift : null,
        lastBlock: counted && call.newMessageCount! > call.prevMessageCount! ? call.newMessageCount! + shift - 1n : null,
        dataContainer: batchDataContainer(args.dataLocation, data),
        txHash: lowerHex(log.transactionHash) as Hex,
        parentBlock: parseQuantity(log.blockNumber),
        parentTimestamp: parseQuantity(headers.get(log.blockNumber)!.timestamp),
      });
    }
    return batches;
  }

  private async confirmationsOf(logs: MinedLog[], headers: Map<Hex, RpcBlock>, outbox: Hex, signal: AbortSignal): Promise<StoredConfirmation[]> {
    const confirmations: StoredConfirmation[] = [];
    for (const log of logs) {
      if (log.address.toLowerCase() !== outbox || log.topics[0] !== TOPICS.confirmed) continue;
      const { args } = decodeEventLog({ abi: outboxEventsAbi, eventName: 'SendRootUpdated', topics: log.topics as [Hex, ...Hex[]], data: log.data });
      const child = await this.options.child.request<RpcBlock | null>('eth_getBlockByHash', [args.l2BlockHash, false], { signal });
      // the child node does not know the confirmed block yet: this step is tried again later
      if (child === null) throw new Error(`confirmed child block ${args.l2BlockHash} is not known to the child node yet`);
      confirmations.push({
        parentBlock: parseQuantity(log.blockNumber),
        logIndex: Number(parseQuantity(log.logIndex)),
        lastBlock: parseQuantity(child.number),
        blockHash: lowerHex(args.l2BlockHash) as Hex,
        sendRoot: lowerHex(args.outputRoot) as Hex,
        txHash: lowerHex(log.transactionHash) as Hex,
        parentTimestamp: parseQuantity(headers.get(log.blockNumber)!.timestamp),
      });
    }
    return confirmations;
  }
}
