/**
 * eth_getLogs over a block range of any length, in spans the node accepts. Providers cap a query
 * by block span, by result count or by response size, and say so in their own words; a refusal
 * (recognised in ./classify-failure.ts) halves the span, or jumps to the span the provider suggests, and
 * success grows it again. The span is remembered between calls when the caller passes the same
 * AdaptiveLogSpan, so a chain's indexer learns its node's limits once.
 */
import type { Hex } from '../db/rows.js';
import { classifyFailure } from './classify-failure.js';
import { LogRangeTooLargeError, RetriesExhaustedError, RpcTransportError } from './errors.js';
import { toQuantity } from './quantity.js';
import type { RpcClient } from './client.js';
import type { RpcLog } from './types.js';

export interface LogQuery {
  fromBlock: bigint;
  toBlock: bigint;
  address?: Hex | Hex[];
  topics?: (Hex | Hex[] | null)[];
}

export interface LogChunk {
  fromBlock: bigint;
  toBlock: bigint;
  logs: RpcLog[];
}

export interface AdaptiveLogSpanOptions {
  initial?: bigint;
  min?: bigint;
  max?: bigint;
  /** successes in a row after which a span that once failed is tried again */
  probeAfterSuccesses?: number;
}

/** Blocks per eth_getLogs query: shrinks on refusals, grows on success, within [min, max]. */
export class AdaptiveLogSpan {
  readonly min: bigint;
  readonly max: bigint;
  private span: bigint;
  /** smallest span refused since the last probe upwards */
  private ceiling: bigint | null = null;
  private successes = 0;
  private readonly probeAfter: number;

  constructor(options: AdaptiveLogSpanOptions = {}) {
    this.min = options.min ?? 1n;
    this.max = options.max ?? 100_000n;
    if (this.min < 1n || this.max < this.min) throw new RangeError('need 1 <= min <= max');
    this.span = this.clamp(options.initial ?? 1_000n);
    this.probeAfter = options.probeAfterSuccesses ?? 20;
  }

  get current(): bigint {
    return this.span;
  }

  private clamp(value: bigint): bigint {
    return value < this.min ? this.min : value > this.max ? this.max : value;
  }

  /** After a query that used the whole span succeeded. */
  grow(): void {
    this.successes += 1;
    // Result density changes along a chain: a span refused once may be fine later.
    if (this.ceiling !== null && this.successes >= this.probeAfter) {
      this.ceiling = null;
      this.successes = 0;
    }
    let next = this.span * 2n;
    if (this.ceiling !== null && next >= this.ceiling) next = this.ceiling - 1n;
    this.span = this.clamp(next > this.span ? next : this.span);
  }

  /** After a refusal of `failedSpan` blocks; `suggested` is the span the node proposed, if any. */
  shrink(failedSpan: bigint, suggested: bigint | null = null): void {
    this.successes = 0;
    this.ceiling = this.ceiling === null || failedSpan < this.ceiling ? failedSpan : this.ceiling;
    const halved = failedSpan / 2n;
    const next = suggested !== null && suggested > 0n && suggested < failedSpan ? suggested : halved;
    this.span = this.clamp(next);
  }
}

export interface FetchLogsOptions {
  signal?: AbortSignal;
  /** share one per chain to keep what was learnt about the node's limits */
  span?: AdaptiveLogSpan;
  /**
   * Rounds of retries before a query that keeps timing out counts as too heavy and is split.
   * Other transient faults keep being retried as the client's policy says.
   */
  roundsBeforeSplit?: number;
}

function isTimeout(error: unknown): boolean {
  return error instanceof RetriesExhaustedError && error.lastError instanceof RpcTransportError && error.lastError.timedOut;
}

/** Logs of `query`, chunk by chunk in block order (each chunk's logs as the node orders them). */
export async function* iterateLogs(rpc: RpcClient, query: LogQuery, options: FetchLogsOptions = {}): AsyncGenerator<LogChunk> {
  const span = options.span ?? new AdaptiveLogSpan();
  const { signal } = options;
  let from = query.fromBlock;
  while (from <= query.toBlock) {
    const wanted = span.current;
    const to = from + wanted - 1n < query.toBlock ? from + wanted - 1n : query.toBlock;
    const splittable = to > from;
    try {
      const logs = await rpc.getLogs(
        {
          fromBlock: toQuantity(from),
          toBlock: toQuantity(to),
          ...(query.address !== undefined ? { address: query.address } : {}),
          ...(query.topics !== undefined ? { topics: query.topics } : {}),
        },
        // Bounded rounds only while splitting can still help; a single block waits out faults.
        splittable ? { signal, maxRounds: options.roundsBeforeSplit ?? 2 } : { signal },
      );
      yield { fromBlock: from, toBlock: to, logs };
      if (to - from + 1n === wanted) span.grow();
      from = to + 1n;
    } catch (error) {
      const { kind } = classifyFailure(error, 'eth_getLogs');
      const tooBig = kind === 'log-range-too-large' || kind === 'response-too-large' || isTimeout(error);
      if (error instanceof RetriesExhaustedError && !tooBig) continue; // an outage: keep trying
      if (!tooBig || !splittable) throw error;
      const suggested = error instanceof LogRangeTooLargeError ? error.suggestedSpan : null;
      span.shrink(to - from + 1n, suggested);
      rpc.logger.debug(
        { chainId: rpc.chainId, fromBlock: from.toString(), toBlock: to.toString(), nextSpan: span.current.toString(), reason: String(error) },
        'eth_getLogs refused the range; splitting',
      );
    }
  }
}

export async function fetchLogs(rpc: RpcClient, query: LogQuery, options: FetchLogsOptions = {}): Promise<RpcLog[]> {
  const logs: RpcLog[] = [];
  for await (const chunk of iterateLogs(rpc, query, options)) logs.push(...chunk.logs);
  return logs;
}
