import type { FastifyRateLimitStore } from '@fastify/rate-limit';

/** Counters kept per budget (a client address, or an API key); the oldest window leaves first. */
const MAX_KEYS = 10_000;

interface Window {
  count: number;
  start: number;
}

/**
 * Fixed one-window counters in this process, used when no Redis is configured.
 * @fastify/rate-limit's own LocalStore hands every caller the same counter object, which later
 * requests counted in the same tick change before the earlier ones read it: a burst of 6
 * under a limit of 3 was answered with six 429s. Here each request gets the numbers as they
 * were when it was counted. Each limiter gets a store of its own (`child`), so a flood of
 * client addresses never pushes out a key's counter.
 */
export class LocalRateStore implements FastifyRateLimitStore {
  private readonly windows = new Map<string, Window>();

  incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
    const now = Date.now();
    let window = this.windows.get(key);
    if (window === undefined || window.start + timeWindow <= now) {
      this.windows.delete(key);
      if (this.windows.size >= MAX_KEYS) this.windows.delete(this.windows.keys().next().value as string);
      window = { count: 0, start: now };
      this.windows.set(key, window);
    }
    window.count++;
    callback(null, { current: window.count, ttl: window.start + timeWindow - now });
  }

  child(): FastifyRateLimitStore {
    return new LocalRateStore();
  }
}
