/**
 * How much one RPC URL is asked, at once and per second: at most `concurrency` HTTP requests
 * (batches, or WebSocket messages) in flight, and at most `callsPerSecond` JSON-RPC calls per
 * second, every call of a batch counted, as providers count them (a token bucket from `limiter`).
 *
 * A 429 (or a JSON-RPC "limit exceeded") means the provider's real limit is below what we send:
 * every request of this URL is held back until its Retry-After has passed (the retry policy's
 * first delay without one), and
 * the rate is halved from what was actually sent in the last second. Each further second with
 * answers and no 429 raises it by a tenth of the configured cap (of the rate before the cut,
 * without a cap), up to that cap: additive increase, multiplicative decrease, as TCP does.
 * Without a configured cap a cut never goes below one full batch a second: a 429 to a lone call
 * while the indexer was nearly idle (a head poll) would otherwise leave 1 call a second, so that
 * every batch after it waited tens of seconds for its tokens, and, since raises come with
 * answers, the rate could only climb by one step per such batch. Raises count the seconds that
 * passed since the last one, not the answers.
 */
import { TokenBucket } from 'limiter';
import { sleep, unlessAborted } from './backoff.js';

export interface RequestBudgetOptions {
  /** HTTP requests in flight at once */
  concurrency: number;
  /** JSON-RPC calls per second; 0 = no cap of our own (a 429 still sets one) */
  callsPerSecond: number;
  /** the largest batch, which the bucket must be able to hold */
  maxBatchCalls: number;
  /** how long a 429 without Retry-After holds requests back */
  holdMs: number;
  /** told when a 429 lowers the rate or the rate is back at its cap */
  onRateChange?: (change: { callsPerSecond: number | null; reason: 'rate-limited' | 'recovered'; retryAfterMs: number }) => void;
}

/** Cuts closer together than this are one storm: the rate is halved once for it, not per batch. */
const CUT_SPACING_MS = 1_000;
const RAISE_EVERY_MS = 1_000;

export class RequestBudget {
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];
  private bucket: TokenBucket | null = null;
  /** the cap in force (null: none), which a 429 lowers below the configured one */
  private rate: number | null;
  /** the rate a raise aims at and the step it takes */
  private ceiling: number | null;
  private step = 1;
  private heldUntil = 0;
  private lastCut = 0;
  private lastRaise = 0;
  /** calls sent, per start time, over the last second: what "what we actually sent" measures */
  private readonly sent: Array<{ at: number; calls: number }> = [];

  constructor(private readonly options: RequestBudgetOptions) {
    if (options.concurrency < 1) throw new RangeError('concurrency must be at least 1');
    this.ceiling = options.callsPerSecond > 0 ? options.callsPerSecond : null;
    this.rate = this.ceiling;
    if (this.ceiling !== null) this.step = Math.max(1, Math.ceil(this.ceiling / 10));
    this.applyRate();
  }

  /** The cap in force, in calls per second; null when there is none. */
  get callsPerSecond(): number | null {
    return this.rate;
  }

  /**
   * Waits for a request slot and for `calls` calls' worth of rate, and for any Retry-After in
   * force; resolves with the function that gives the slot back (call it once the answer is in).
   */
  async acquire(calls: number, signal?: AbortSignal): Promise<() => void> {
    await this.slot(signal);
    try {
      await this.spend(calls, signal);
    } catch (error) {
      this.release();
      throw error;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release();
    };
  }

  /** Rate for `calls` more calls of a request that already holds a slot (a batch asked again). */
  async spend(calls: number, signal?: AbortSignal): Promise<void> {
    for (;;) {
      const hold = this.heldUntil - Date.now();
      if (hold > 0) {
        await sleep(hold, signal);
        continue;
      }
      const bucket = this.bucket;
      if (bucket !== null) await unlessAborted(bucket.removeTokens(Math.min(calls, bucket.bucketSize)).then(() => undefined), signal);
      // a 429 that came while this waited for tokens holds this request back too
      if (this.heldUntil <= Date.now()) break;
    }
    this.record(calls);
  }

  /** The provider refused for rate: hold every request back and lower the rate. */
  rateLimited(retryAfterMs: number | null, calls: number): void {
    const now = Date.now();
    const holdMs = retryAfterMs ?? this.options.holdMs;
    this.heldUntil = Math.max(this.heldUntil, now + holdMs);
    if (now - this.lastCut < CUT_SPACING_MS) return;
    this.lastCut = now;
    this.lastRaise = now + holdMs;
    const sending = Math.max(this.sentLastSecond(now), calls);
    const before = this.rate === null ? sending : Math.min(this.rate, sending);
    const floor = this.ceiling === null ? this.options.maxBatchCalls : 1;
    if (this.ceiling === null) this.step = Math.max(1, Math.ceil(Math.max(before, floor) / 10));
    this.rate = Math.max(floor, Math.floor(before / 2));
    this.applyRate();
    this.options.onRateChange?.({ callsPerSecond: this.rate, reason: 'rate-limited', retryAfterMs: holdMs });
  }

  /** An answer came: a step for each whole second since the last raise (or the hold's end), towards the cap. */
  answered(): void {
    if (this.rate === null || (this.ceiling !== null && this.rate >= this.ceiling)) return;
    const now = Date.now();
    const seconds = Math.floor((now - this.lastRaise) / RAISE_EVERY_MS);
    if (seconds < 1) return;
    this.lastRaise = now;
    const raised = this.rate + this.step * seconds;
    this.rate = this.ceiling === null ? raised : Math.min(this.ceiling, raised);
    this.applyRate();
    if (this.rate === this.ceiling) this.options.onRateChange?.({ callsPerSecond: this.rate, reason: 'recovered', retryAfterMs: 0 });
  }

  private applyRate(): void {
    if (this.rate === null) {
      this.bucket = null;
      return;
    }
    // A burst of a quarter second's calls (or one batch, if larger): in any one second at most
    // 1.25 × the cap goes out, and a batch never waits for a bucket too small to hold it.
    const bucketSize = Math.max(this.options.maxBatchCalls + 1, Math.ceil(this.rate / 4));
    if (this.bucket === null) {
      this.bucket = new TokenBucket({ bucketSize, tokensPerInterval: this.rate, interval: 1_000 });
    } else {
      this.bucket.tokensPerInterval = this.rate;
      this.bucket.bucketSize = bucketSize;
      this.bucket.content = Math.min(this.bucket.content, bucketSize);
    }
  }

  private async slot(signal?: AbortSignal): Promise<void> {
    if (this.inFlight < this.options.concurrency) {
      this.inFlight++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.waiting.indexOf(grant);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal?.reason ?? new Error('aborted'));
      };
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(grant);
    });
  }

  private release(): void {
    // the slot passes straight to the next in line, so the count stays put
    const next = this.waiting.shift();
    if (next) next();
    else this.inFlight--;
  }

  private record(calls: number): void {
    const now = Date.now();
    this.sent.push({ at: now, calls });
    while (this.sent.length > 0 && this.sent[0]!.at < now - 1_000) this.sent.shift();
  }

  private sentLastSecond(now: number): number {
    return this.sent.reduce((sum, s) => (s.at >= now - 1_000 ? sum + s.calls : sum), 0);
  }
}
