import type { ChainConfig } from '../config/config.js';
import { ensRegistryFor } from '../config/ens.js';
import type { RpcClient } from '../rpc/client.js';
import { fetchBlockWithReceipts, supportsBlockReceipts } from '../evm/fetch-blocks.js';
import { detectTraceMethod, fetchBlockTraceSummary, tracesMismatch, type BlockTraceSummary } from '../evm/traces.js';
import type { RpcBlock } from '../rpc/types.js';
import { askUntilRight } from '../evm/ask-until-right.js';
import { fetchUncles } from '../evm/uncles.js';
import { digestBlock, type DigestedBlock } from './transform.js';
import { WrappedNativeTokens } from './wrapped-native.js';
import type { Logger } from './logger.js';

/**
 * The fetch stage's work for one block (./block-prefetcher.ts asks for blocks through it): the
 * block with its receipts, its trace where the node has them, its uncles, digested for the
 * transform. What the node can do is asked once per chain.
 */
export class BlockFetcher {
  private traces: Promise<boolean> | null;
  private readonly wrapped: WrappedNativeTokens;

  constructor(
    private readonly rpc: RpcClient,
    private readonly chain: ChainConfig,
    private readonly logger: Logger,
    /** false: never ask for traces */
    traces?: boolean,
  ) {
    this.wrapped = new WrappedNativeTokens(rpc, chain.wrappedNativeTokens ?? []);
    this.traces = traces === false ? Promise.resolve(false) : null;
  }

  /** The node's capabilities (traces, block receipts), asked at `block`; a probe that fails is asked again by the next fetch. */
  probe(block: bigint): Promise<[traces: boolean, blockReceipts: boolean]> {
    return Promise.all([this.useTraces(block), supportsBlockReceipts(this.rpc)]);
  }

  /**
   * One block with its receipts, traces (when the node has them) and uncles, digested at once
   * (transform.ts digestBlock): what waits in the fetch window is the digest, not the raw block.
   */
  async fetch(number: bigint, signal: AbortSignal): Promise<DigestedBlock> {
    // both probes answered before any call goes out (and side by side: one round trip): a
    // block's calls and its trace then leave in the same tick, in block order. Otherwise every
    // trace call of the window was sent before the first block's, spending the rate on them.
    const [useTraces] = await this.probe(number);
    // traces are asked beside the block, in the same tick, so they share its batch
    const [fetched, firstTraces] = await Promise.all([
      fetchBlockWithReceipts(this.rpc, number, { signal, pollIntervalMs: this.chain.pollIntervalMs, maxWaitMs: this.maxWaitMs }),
      useTraces ? fetchBlockTraceSummary(this.rpc, number, { signal }) : null,
    ]);
    const traces = firstTraces === null ? null : await this.tracesOfBlock(fetched.block, firstTraces, signal);
    const uncles = await fetchUncles(this.rpc, fetched.block, { signal });
    // before the block is handed over: its transform must know the wrapped tokens it emits
    await this.wrapped.learnFrom(fetched.receipts.flatMap((r) => r.logs), number);
    return digestBlock(
      { ...fetched, traces, uncles },
      {
        chainId: this.chain.chainId,
        wrappedNativeTokens: this.wrapped.set,
        ensRegistry: ensRegistryFor(this.chain.chainId, this.chain.ens),
        blockProducer: this.chain.blockProducer,
      },
    );
  }

  /** how long a block, its receipts or its traces are asked again before the answer stands */
  private get maxWaitMs(): number {
    return Math.max(this.chain.pollIntervalMs * 5, 2_000);
  }

  /**
   * The traces of this very block: an answer that is not (evm/traces.ts tracesMismatch: a
   * provider's backend behind or on a sibling) is asked again, as a block's receipts are; one
   * that stays so past the wait is kept without its counts (unknown, not wrong), and said so.
   */
  private async tracesOfBlock(block: RpcBlock, first: BlockTraceSummary, signal: AbortSignal): Promise<BlockTraceSummary> {
    const number = BigInt(block.number);
    const facts = { hash: block.hash, transactions: block.transactions.length };
    const log = (attempt: number | undefined, problem: string) => ({ chainId: this.chain.chainId, block: number.toString(), attempt, problem });
    let traces = first;
    return askUntilRight<BlockTraceSummary>(
      async (attempt) => {
        if (attempt > 1) traces = (await fetchBlockTraceSummary(this.rpc, number, { signal }))!;
        const problem = tracesMismatch(traces, facts);
        return problem === null ? { right: traces } : { problem };
      },
      {
        signal,
        pollIntervalMs: this.chain.pollIntervalMs,
        maxWaitMs: this.maxWaitMs,
        what: `tracing block ${number}`,
        onRetry: (attempt, problem) => this.logger.warn(log(attempt, problem), 'block traces do not match the block; asking again'),
        giveUp: (problem) => {
          this.logger.warn(log(undefined, problem), 'block traces never matched the block; its internal transaction count and rewards are left unknown');
          return { ...traces, rewards: null, internalTransactionsCount: null };
        },
      },
    );
  }

  /** Detected once per chain; blocks fetched concurrently share the one probe. */
  private useTraces(probeBlock: bigint): Promise<boolean> {
    if (this.traces === null) {
      const probe = detectTraceMethod(this.rpc, probeBlock).then((method) => {
        this.logger.info({ chainId: this.chain.chainId, traces: method ?? 'none' }, 'trace support detected');
        return method !== null;
      });
      this.traces = probe;
      // a probe that failed without an answer (a fault, a block the node lacks) is asked again
      probe.catch(() => {
        if (this.traces === probe) this.traces = null;
      });
    }
    return this.traces;
  }
}
