import pLimit, { type LimitFunction } from 'p-limit';
import { DatabaseUnavailableError } from '../client.js';

/**
 * Some reads take seconds and grow with a token's size: a count at a past block
 * (balance-history.ts summaryAt, a pass over the holders at that block) and an Etherscan-style
 * page deep in a list (`page` × `offset` past the first 10,000 rows: a range scan that walks
 * every row before it). Within its rate limit a single client could ask for many at once and
 * hold every connection of the API's pool, so every other page would wait on them. So a process
 * runs at most `concurrency` of a kind at once; up to `waiting` more queue (holding an HTTP
 * request, not a connection); beyond that the request is refused as busy, with a time to retry
 * after. The same read on the same database, asked again while it runs (an export's retries,
 * several clients snapshotting one block), shares it.
 */
export interface ReadGateOptions {
  concurrency: number;
  waiting: number;
  /** what a refused request is told is busy (the 503's message) */
  busy: string;
  /** what a refused request is told to wait: about one such read at 10M holders */
  retryAfterSeconds: number;
}

export const COUNT_GATE: ReadGateOptions = { concurrency: 2, waiting: 8, busy: 'too many counts at past blocks in progress', retryAfterSeconds: 5 };
export const DEEP_PAGE_GATE: ReadGateOptions = { concurrency: 2, waiting: 8, busy: 'too many deep pages in progress', retryAfterSeconds: 5 };

/** Too many of a kind of read queued: 503 with Retry-After (api/plugins/errors.ts replyUnavailable). */
export class ReadsBusyError extends DatabaseUnavailableError {
  override name = 'ReadsBusyError';
  override readonly retryAfterSeconds: number;
  constructor(options: ReadGateOptions) {
    super(undefined);
    this.message = options.busy;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export class ReadGate {
  private readonly limit: LimitFunction;
  /** per database, the reads running by key */
  private readonly running = new WeakMap<object, Map<string, Promise<unknown>>>();

  constructor(private readonly options: ReadGateOptions) {
    this.limit = pLimit(options.concurrency);
  }

  /**
   * `read`'s result, run under the gate unless the same `key` on the same `scope` (the
   * database) is running already; ReadsBusyError when the gate is full.
   */
  run<T>(scope: object, key: string, read: () => Promise<T>): Promise<T> {
    let running = this.running.get(scope);
    if (!running) this.running.set(scope, (running = new Map()));
    const shared = running.get(key);
    if (shared) return shared as Promise<T>;
    if (this.limit.activeCount >= this.options.concurrency && this.limit.pendingCount >= this.options.waiting) {
      return Promise.reject(new ReadsBusyError(this.options));
    }
    const started = this.limit(read).finally(() => running.delete(key));
    running.set(key, started);
    return started;
  }
}

/** The process's gates: each limit counts every database the process serves (one, in `explorer start` or `serve`); sharing is per database. */
export const countGate = new ReadGate(COUNT_GATE);
export const deepPageGate = new ReadGate(DEEP_PAGE_GATE);
