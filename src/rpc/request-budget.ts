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
 *
 * Two lanes share the budget: the block pipeline's and the background's (enrichment: contract
 * checks, token metadata, blob fields). Slots and rate go to the pipeline first; a background
 * request waits while pipeline requests are waiting, except that one waiting longer than
 * `BACKGROUND_MAX_WAIT_MS` goes next, so decorations still come while the pipeline uses all of
 * the budget. A fast-chain review found the background's `eth_getCode`s, 76 % of the calls under a
 * cap of 50 a second, holding a chain of 4 blocks a second 35–45 blocks behind its head.
 */
import { TokenBucket } from 'limiter';
import { sleep, unlessAborted } from './backoff.js';

/** Whose request: the block pipeline's goes first. */
export type Lane = 'pipeline' | 'background';

/** A background request waiting longer than this goes before the pipeline's next. */
export const BACKGROUND_MAX_WAIT_MS = 5_000;

interface Waiter {
  lane: Lane;
  since: number;
  /** calls' worth of rate it waits for; 0 for a slot */
  calls: number;
  grant: () => void;
}

export interface RequestBudgetOptions {
  /** HTTP requests in flight at once */
  concurrency: number;
  /** JSON-RPC calls per second; 0 = no cap of our own (a 429 still sets one) */
  callsPerSecond: number;
  /** the largest batch, which the bucket must be able to hold */
  maxBatchCalls: number;
  /** how long a 429 without Retry-After holds requests back */
  holdMs: number;
  /** a background request waiting longer than this goes next (default BACKGROUND_MAX_WAIT_MS) */
  backgroundMaxWaitMs?: number;
  /** told when a 429 lowers the rate or the rate is back at its cap */
  onRateChange?: (change: { callsPerSecond: number | null; reason: 'rate-limited' | 'recovered'; retryAfterMs: number }) => void;
}

/** Cuts closer together than this are one storm: the rate is halved once for it, not per batch. */
const CUT_SPACING_MS = 1_000;
const RAISE_EVERY_MS = 1_000;

export class RequestBudget {
  private inFlight = 0;
  /** requests waiting for a slot, and for rate: each in its order of arrival */
  private readonly waitingSlot: Waiter[] = [];
  private readonly waitingRate: Waiter[] = [];
  private wake: NodeJS.Timeout | null = null;
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
  async acquire(calls: number, signal?: AbortSignal, lane: Lane = 'pipeline'): Promise<() => void> {
    // one patience for the whole wait, slot and rate
    const since = Date.now();
    if (lane === 'background') {
      // rate first: a background request waiting for rate must not sit on a slot the pipeline
      // needs to get in line for rate at all (a review: 8 background batches issued first halved
      // the pipeline's batches under a concurrency of 8)
      await this.spend(calls, signal, lane, since);
      await this.slot(signal, lane, since);
    } else {
      await this.slot(signal, lane, since);
      try {
        await this.spend(calls, signal, lane, since);
      } catch (error) {
        this.release();
        throw error;
      }
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release();
    };
  }

  /** Rate for `calls` more calls of a request that already holds a slot (a batch asked again). */
  async spend(calls: number, signal?: AbortSignal, lane: Lane = 'pipeline', since = Date.now()): Promise<void> {
    for (;;) {
      const hold = this.heldUntil - Date.now();
      if (hold > 0) {
        await sleep(hold, signal);
        continue;
      }
      if (this.bucket !== null) await this.waitInLine(this.waitingRate, lane, calls, signal, since);
      // a 429 that came while this waited for tokens holds this request back too
      if (this.heldUntil <= Date.now()) break;
    }
    this.record(calls);
  }

  /** Joins a queue and waits for its grant (queues are served by `next`); leaves it when aborted. */
  private async waitInLine(queue: Waiter[], lane: Lane, calls: number, signal: AbortSignal | undefined, since: number): Promise<void> {
    let waiter!: Waiter;
    const granted = new Promise<void>((resolve) => {
      waiter = { lane, since, calls, grant: resolve };
    });
    queue.push(waiter);
    if (queue === this.waitingRate) this.pumpRate();
    try {
      await unlessAborted(granted, signal);
    } catch (error) {
      const index = queue.indexOf(waiter);
      if (index >= 0) queue.splice(index, 1);
      else if (queue === this.waitingSlot) this.release(); // granted as it was aborted: pass it on
      // the next grant is another waiter's, or nobody's: no timer kept for an empty queue
      if (queue === this.waitingRate) this.pumpRate();
      throw error;
    }
  }

  private get patienceMs(): number {
    return this.options.backgroundMaxWaitMs ?? BACKGROUND_MAX_WAIT_MS;
  }

  /** The next to serve: a background waiter waiting too long, else the pipeline's first, else the first. */
  private next(queue: Waiter[]): Waiter | undefined {
    const now = Date.now();
    return (
      queue.find((w) => w.lane === 'background' && now - w.since >= this.patienceMs) ??
      queue.find((w) => w.lane === 'pipeline') ??
      queue[0]
    );
  }

  /** Grants rate to waiters in turn while the bucket holds enough; wakes when it will. */
  private pumpRate(): void {
    if (this.wake !== null) {
      clearTimeout(this.wake);
      this.wake = null;
    }
    for (;;) {
      const next = this.next(this.waitingRate);
      if (next === undefined) return;
      const bucket = this.bucket;
      const calls = bucket === null ? 0 : Math.min(next.calls, bucket.bucketSize);
      if (bucket !== null && !bucket.tryRemoveTokens(calls)) {
        const missing = calls - bucket.content;
        // and within a background waiter's patience, which may put it first
        const ms = Math.min(Math.ceil((missing * 1_000) / bucket.tokensPerInterval), this.patienceMs);
        // (not unref'd: a request waiting for rate is work the process still has, as it was with limiter's waits)
        this.wake = setTimeout(() => this.pumpRate(), Math.max(1, ms));
        return;
      }
      this.waitingRate.splice(this.waitingRate.indexOf(next), 1);
      next.grant();
    }
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
      this.pumpRate();
      return;
    }
    // A burst of a quarter second's calls, or one batch if larger, so that a batch never waits for
    // a bucket too small to hold it. Any one second then sees at most the cap plus that burst:
    // 1.25 × the cap where a quarter second's calls are more than a batch, the cap plus a batch
    // below that (a cap of 100 with batches of 40: 141; README says to leave a batch's room
    // under a provider's hard cap).
    const bucketSize = Math.max(this.options.maxBatchCalls + 1, Math.ceil(this.rate / 4));
    if (this.bucket === null) {
      this.bucket = new TokenBucket({ bucketSize, tokensPerInterval: this.rate, interval: 1_000 });
    } else {
      this.bucket.tokensPerInterval = this.rate;
      this.bucket.bucketSize = bucketSize;
      this.bucket.content = Math.min(this.bucket.content, bucketSize);
    }
    this.pumpRate();
  }

  private async slot(signal: AbortSignal | undefined, lane: Lane, since: number): Promise<void> {
    if (this.inFlight < this.options.concurrency) {
      this.inFlight++;
      return;
    }
    await this.waitInLine(this.waitingSlot, lane, 0, signal, since);
  }

  private release(): void {
    // the slot passes straight to the next in line, so the count stays put
    const next = this.next(this.waitingSlot);
    if (next === undefined) {
      this.inFlight--;
      return;
    }
    this.waitingSlot.splice(this.waitingSlot.indexOf(next), 1);
    next.grant();
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
