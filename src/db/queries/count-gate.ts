import pLimit, { type LimitFunction } from 'p-limit';
import { DatabaseUnavailableError } from '../client.js';

/**
 * Counts at a past block (balance-history.ts summaryAt) are a pass over a token's holders at
 * that block: seconds at 10M holders, on one of the API pool's connections. Within its rate
 * limit a single key could ask for many distinct blocks at once and hold every connection, so
 * every other page would wait on them. So a process counts at most `concurrency` at once; up
 * to `waiting` more queue (holding an HTTP request, not a connection); beyond that the request
 * is refused as busy, with a time to retry after. The same count on the same database, asked
 * again while it runs (an export's retries, several clients snapshotting one block), shares it.
 */
export interface CountGateOptions {
  concurrency: number;
  waiting: number;
}

export const COUNT_GATE: CountGateOptions = { concurrency: 2, waiting: 8 };
/** what a refused request is told to wait: about one count at 10M holders */
export const COUNT_RETRY_AFTER_SECONDS = 5;

/** Too many counts queued: 503 with Retry-After (api/plugins/errors.ts replyUnavailable). */
export class CountsBusyError extends DatabaseUnavailableError {
  override name = 'CountsBusyError';
  override readonly retryAfterSeconds = COUNT_RETRY_AFTER_SECONDS;
  constructor() {
    super(undefined);
    this.message = 'too many counts at past blocks in progress';
  }
}

export class CountGate {
  private readonly limit: LimitFunction;
  /** per database, the counts running by key */
  private readonly running = new WeakMap<object, Map<string, Promise<unknown>>>();

  constructor(private readonly options: CountGateOptions = COUNT_GATE) {
    this.limit = pLimit(options.concurrency);
  }

  /**
   * `count`'s result, run under the gate unless the same `key` on the same `scope` (the
   * database) is running already; CountsBusyError when the gate is full.
   */
  run<T>(scope: object, key: string, count: () => Promise<T>): Promise<T> {
    let running = this.running.get(scope);
    if (!running) this.running.set(scope, (running = new Map()));
    const shared = running.get(key);
    if (shared) return shared as Promise<T>;
    if (this.limit.activeCount >= this.options.concurrency && this.limit.pendingCount >= this.options.waiting) {
      return Promise.reject(new CountsBusyError());
    }
    const started = this.limit(count).finally(() => running.delete(key));
    running.set(key, started);
    return started;
  }
}

/** The process's gate: its limit counts every database the process serves (one, in `explorer start` or `serve`); sharing is per database. */
export const countGate = new CountGate();
