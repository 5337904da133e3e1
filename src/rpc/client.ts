/**
 * Per-chain JSON-RPC client on viem: one batching transport per URL, HTTP (./json-rpc-http.ts) or
 * WebSocket (./json-rpc-ws.ts), both checking response ids (./json-rpc-batch.ts), behind a
 * `fallback` transport, plus the retry policy viem does not have:
 *
 *  - each URL retries transient faults (timeouts, 429 with Retry-After, 5xx, resets, truncated or
 *    garbled JSON, mixed-up response ids) with exponential backoff and jitter;
 *  - when a URL keeps failing, the fallback transport moves to the next one, and the failing URL
 *    is skipped for a cool-down so later requests do not pay for it again (./url-retries.ts,
 *    which also asks each URL its chain id before its first use);
 *  - when every URL failed, the whole round starts over after a delay; by default it never gives
 *    up on transient faults (an indexer should wait out an outage, not crash), `maxRounds` bounds it.
 *
 * JSON-RPC errors (reverts, unsupported methods, too-big log ranges) are answers, not faults:
 * they are thrown at once as typed errors (./errors.ts).
 */
import { createPublicClient, fallback, type PublicClient } from 'viem';
import type { Hex } from '../db/rows.js';
import { backoffDelay, type BackoffPolicy } from './backoff.js';
import { signalCombiner } from './combined-signal.js';
import { classifyFailure, toRpcError } from './classify-failure.js';
import { BatchCap, type BatchCapChange } from './batch-cap.js';
import { RequestAbortedError, RetriesExhaustedError } from './errors.js';
import { parseQuantity, toQuantity, toSafeNumber } from './quantity.js';
import { jsonRpcHttp } from './json-rpc-http.js';
import { redactedLabels, redactUrl } from './redact-url.js';
import { logOnce, sharedSleep, withUrlRetries, type Endpoint, type RetryContext } from './url-retries.js';

export { redactUrl };
import { RequestBudget, type Lane } from './request-budget.js';
import { jsonRpcWebSocket } from './json-rpc-ws.js';
import type { BlockTag, RpcBlock, RpcLog, RpcLogFilter, RpcReceipt } from './types.js';

/** The subset of pino's logger this layer uses. */
export interface RpcLogger {
  warn(obj: Record<string, unknown>, msg?: string): void;
  info(obj: Record<string, unknown>, msg?: string): void;
  debug(obj: Record<string, unknown>, msg?: string): void;
}

export const silentLogger: RpcLogger = { warn() {}, info() {}, debug() {} };

export interface RetryPolicy extends BackoffPolicy {
  /** tries on one URL (first try included) before falling over to the next URL */
  attemptsPerUrl: number;
  /** passes over all URLs before giving up; Infinity = wait out any outage */
  maxRounds: number;
  /** a Retry-After beyond this is clipped (a misconfigured server must not park us for hours) */
  maxRetryAfterMs: number;
  /** how long a URL that exhausted its attempts is skipped while other URLs remain */
  urlCooldownMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  baseDelayMs: 250,
  maxDelayMs: 30_000,
  jitter: 0.5,
  attemptsPerUrl: 3,
  maxRounds: Number.POSITIVE_INFINITY,
  maxRetryAfterMs: 120_000,
  urlCooldownMs: 30_000,
};

export interface RpcClientOptions {
  chainId: number;
  /** in order of preference */
  urls: readonly string[];
  logger?: RpcLogger;
  /** per exchange (one batch) */
  timeoutMs?: number;
  /** JSON-RPC calls per batch */
  batchSize?: number;
  /** HTTP requests (batches) in flight at once, per URL; default unbounded */
  concurrency?: number;
  /** JSON-RPC calls per second, per URL, every call of a batch counted; 0 or absent = no cap (429s still slow it down) */
  requestsPerSecond?: number;
  /** how long calls wait to be batched together */
  batchWaitMs?: number;
  /**
   * Largest response body accepted. viem refuses more than 10 MiB by default, which a batch of
   * full mainnet blocks or receipts exceeds; 256 MiB stays well under V8's string limit.
   */
  maxResponseBytes?: number;
  retry?: Partial<RetryPolicy>;
  /**
   * Ends every call, and every wait between retries, when it fires (the process stopping),
   * whatever signal the caller passed: a stop must not wait on a node that is gone.
   */
  signal?: AbortSignal;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** overrides the client's `retry.maxRounds` for this call */
  maxRounds?: number;
}

export type BlockRef = bigint | BlockTag;

export interface RpcClient {
  readonly chainId: number;
  readonly urls: readonly string[];
  readonly logger: RpcLogger;
  /** the underlying viem client, for code that wants viem's typed actions */
  readonly viem: PublicClient;
  request<T = unknown>(method: string, params?: readonly unknown[], options?: RequestOptions): Promise<T>;
  getChainId(options?: RequestOptions): Promise<number>;
  getBlockNumber(options?: RequestOptions): Promise<bigint>;
  /** null when the node does not have the block (yet) */
  getBlock(block: BlockRef, includeTransactions: boolean, options?: RequestOptions): Promise<RpcBlock | null>;
  /** by number, tag or block hash; null when the node does not have the block (yet) */
  getBlockReceipts(block: BlockRef | Hex, options?: RequestOptions): Promise<RpcReceipt[] | null>;
  getTransactionReceipt(hash: Hex, options?: RequestOptions): Promise<RpcReceipt | null>;
  getLogs(filter: RpcLogFilter, options?: RequestOptions): Promise<RpcLog[]>;
  call(to: Hex, data: Hex, block?: BlockRef, options?: RequestOptions): Promise<Hex>;
  getCode(address: Hex, block?: BlockRef, options?: RequestOptions): Promise<Hex>;
  getStorageAt(address: Hex, slot: Hex, block?: BlockRef, options?: RequestOptions): Promise<Hex>;
  /**
   * Each URL's chain id, asked of that URL alone (null: it did not answer). Every URL is also
   * asked before its first use, and one serving another chain is never used.
   */
  urlChainIds(): Promise<Array<{ url: string; chainId: number | null }>>;
  /**
   * The same URLs and budgets for work that decorates what the pipeline wrote (enrichment): its
   * requests wait while the pipeline's do (./request-budget.ts, lanes), in batches of their own.
   */
  readonly background: RpcClient;
  /** closes WebSocket connections (HTTP holds none), both lanes'; calls made afterwards fail */
  close(): void;
}

/**
 * eth_call whose failure is the contract's answer (revert, missing function, bad opcode) → null.
 * Faults of the node or the connection still throw: they say nothing about the contract.
 */
export async function callOrNull(
  rpc: RpcClient,
  to: Hex,
  data: Hex,
  block: BlockRef = 'latest',
  options: RequestOptions = {},
): Promise<Hex | null> {
  try {
    return await rpc.call(to, data, block, options);
  } catch (error) {
    const { kind } = classifyFailure(error, 'eth_call');
    if (kind === 'rpc-error' || kind === 'method-unsupported') return null;
    throw error;
  }
}

export const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

export function blockParam(block: BlockRef | Hex): string {
  return typeof block === 'bigint' ? toQuantity(block) : block;
}

export const isWebSocketUrl = (url: string): boolean => /^wss?:\/\//i.test(url);

export function createRpcClient(options: RpcClientOptions): RpcClient {
  if (options.urls.length === 0) throw new TypeError(`chain ${options.chainId}: no RPC URLs`);
  const logger = options.logger ?? silentLogger;
  const policy: RetryPolicy = { ...defaultRetryPolicy, ...options.retry };
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const labels = redactedLabels(options.urls);
  const endpoints: Endpoint[] = options.urls.map((url, i) => ({
    url,
    label: labels[i]!,
    chainId: null,
    servedChain: () => Promise.reject(new Error('no transport yet')),
    notBefore: 0,
    cooldownUntil: 0,
  }));
  // One log line per failure, not one per request of the failed batch: all of them receive the
  // same error object.
  const logged = new WeakMap<object, Set<string>>();
  // ... and one wait per failure (sharedSleep), so the requests of a failed batch retry together
  // and are batched together again instead of trickling out one HTTP exchange each.
  const context: RetryContext = { chainId: options.chainId, logger, policy, endpoints, logged, urlWaits: new WeakMap(), roundWaits: new WeakMap() };

  const closers: Array<() => void> = [];
  const batchSize = options.batchSize ?? 100;
  // per URL, whichever lane asks: one budget, and one batch cap (what a refusal taught holds for both)
  const budgets = endpoints.map((endpoint) => new RequestBudget({
    concurrency: options.concurrency ?? Number.POSITIVE_INFINITY,
    callsPerSecond: options.requestsPerSecond ?? 0,
    maxBatchCalls: batchSize,
    holdMs: policy.baseDelayMs,
    onRateChange: ({ callsPerSecond, reason, retryAfterMs }) =>
      reason === 'rate-limited'
        ? logger.warn({ chainId: options.chainId, url: endpoint.label, callsPerSecond, retryAfterMs }, 'RPC URL rate-limits us; sending fewer calls per second')
        : logger.info({ chainId: options.chainId, url: endpoint.label, callsPerSecond }, 'RPC URL back at its configured rate'),
  }));
  const batchCaps = endpoints.map((endpoint) => new BatchCap(batchSize, (change: BatchCapChange) =>
    'grown' in change
      ? logger.info({ chainId: options.chainId, url: endpoint.label, callsPerRequest: change.cap }, 'RPC URL takes larger batches again')
      : logger.warn(
          { chainId: options.chainId, url: endpoint.label, refused: change.refused, callsPerRequest: change.cap, by: change.refusal.by, said: change.refusal.message.slice(0, 200) },
          'RPC URL refuses batches this large; sending fewer calls per request',
        ),
  ));
  // one transport per URL and lane: a lane's calls are batched apart (over WebSocket, on a
  // connection of its own)
  const transportsFor = (lane: Lane) => endpoints.map((endpoint, i) => {
    const carrier = {
      chainId: options.chainId,
      batchSize,
      budget: budgets[i]!,
      batchCap: batchCaps[i]!,
      lane,
      batchWaitMs: options.batchWaitMs ?? 0,
      maxResponseBytes,
      timeoutMs: options.timeoutMs ?? 30_000,
      onOutOfOrder: (calls: number) =>
        logger.warn({ chainId: options.chainId, url: endpoint.label, calls }, 'RPC batch answered out of order; asking again'),
    };
    if (!isWebSocketUrl(endpoint.url)) return withUrlRetries(jsonRpcHttp(endpoint.url, carrier), endpoint, context);
    const ws = jsonRpcWebSocket(endpoint.url, {
      ...carrier,
      onDisconnect: (reason) =>
        logger.info({ chainId: options.chainId, url: endpoint.label, reason }, 'RPC WebSocket closed; the next call connects again'),
    });
    closers.push(ws.close);
    return withUrlRetries(ws.transport, endpoint, context);
  });
  const withClientSignal = signalCombiner(options.signal);
  let background: RpcClient | undefined;
  const pipeline = laneClient(transportsFor('pipeline'), () => (background ??= laneClient(transportsFor('background'), () => background!)));
  return pipeline;

  /** A client over one lane's transports; `backgroundLane` gives the background's. */
  function laneClient(transports: ReturnType<typeof transportsFor>, backgroundLane: () => RpcClient): RpcClient {
    const viemClient = createPublicClient({
      transport: fallback(transports, {
        retryCount: 0,
        // Only transient faults move on to the next URL; an answer (revert, unsupported method)
        // would be the same everywhere.
        shouldThrow: (error) => classifyFailure(error).kind !== 'transient',
      }),
    });
    const viemRequest = viemClient.request as unknown as (
      args: { method: string; params?: readonly unknown[] },
      options?: { signal?: AbortSignal },
    ) => Promise<unknown>;

    async function request<T>(method: string, params: readonly unknown[] = [], requestOptions: RequestOptions = {}): Promise<T> {
      const signal = withClientSignal(requestOptions.signal);
      const maxRounds = requestOptions.maxRounds ?? policy.maxRounds;
      for (let round = 0; ; round++) {
        try {
          return (await viemRequest({ method, params }, signal ? { signal } : undefined)) as T;
        } catch (error) {
          if (signal?.aborted) throw new RequestAbortedError(`${method}: aborted`, { method, cause: error });
          const rpcError = toRpcError(error, method);
          const { kind } = classifyFailure(rpcError, method);
          if (kind !== 'transient') throw rpcError;
          if (round + 1 >= maxRounds) throw new RetriesExhaustedError(round + 1, rpcError, { method });
          // Keep growing the delay across rounds, and honour the shortest Retry-After.
          let delayMs = backoffDelay(policy.attemptsPerUrl + round, policy);
          const soonestUp = Math.min(...endpoints.map((e) => e.notBefore)) - Date.now();
          if (soonestUp > delayMs) delayMs = Math.min(soonestUp, policy.maxRetryAfterMs);
          logOnce(context, error, 'warn', { method, round: round + 1, delayMs, reason: rpcError.message }, 'all RPC URLs failed; retrying');
          try {
            await sharedSleep(context.roundWaits, error, delayMs, signal);
          } catch (abortReason) {
            throw new RequestAbortedError(`${method}: aborted`, { method, cause: abortReason });
          }
        }
      }
    }

    const client: RpcClient = {
      chainId: options.chainId,
      urls: options.urls,
      logger,
      viem: viemClient as PublicClient,
      request,
      async getChainId(o) {
        return toSafeNumber(parseQuantity(await request<string>('eth_chainId', [], o)), 'chain id');
      },
      async getBlockNumber(o) {
        return parseQuantity(await request<string>('eth_blockNumber', [], o));
      },
      getBlock(block, includeTransactions, o) {
        return request<RpcBlock | null>('eth_getBlockByNumber', [blockParam(block), includeTransactions], o);
      },
      getBlockReceipts(block, o) {
        return request<RpcReceipt[] | null>('eth_getBlockReceipts', [blockParam(block)], o);
      },
      getTransactionReceipt(hash, o) {
        return request<RpcReceipt | null>('eth_getTransactionReceipt', [hash], o);
      },
      getLogs(filter, o) {
        return request<RpcLog[]>('eth_getLogs', [filter], o);
      },
      call(to, data, block = 'latest', o) {
        return request<Hex>('eth_call', [{ to, data }, blockParam(block)], o);
      },
      getCode(address, block = 'latest', o) {
        return request<Hex>('eth_getCode', [address, blockParam(block)], o);
      },
      getStorageAt(address, slot, block = 'latest', o) {
        return request<Hex>('eth_getStorageAt', [address, slot, blockParam(block)], o);
      },
      async urlChainIds() {
        const answers = await Promise.allSettled(endpoints.map((e) => e.servedChain()));
        return endpoints.map((e, i) => ({ url: e.label, chainId: answers[i]!.status === 'fulfilled' ? (answers[i] as PromiseFulfilledResult<number>).value : null }));
      },
      get background() {
        return backgroundLane();
      },
      close() {
        for (const close of closers) close();
      },
    };
    return client;
  }
}
