import { createRequire } from 'node:module';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { LocalRateStore } from './local-rate-store.js';

// @fastify/rate-limit's atomic Redis counter (a Lua script), not re-exported by its index
const RedisStore = createRequire(import.meta.url)('@fastify/rate-limit/store/RedisStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  key: string,
) => FastifyRateLimitStore;

/** every key of ours in Redis starts so; the limiters' keys carry their own prefix (rate-limit.ts) */
const NAMESPACE = 'explorer-rl:';
/** how long Redis is left alone after it failed to answer */
const RETRY_AFTER_MS = 5_000;

/**
 * Counters shared by every API process through Redis, and counted in this process whenever
 * Redis does not answer (down, or hung: the client's command timeout), so that an outage leaves
 * each process its own limits instead of none (an outside review found the API unlimited while
 * Redis was away, and silent about it while Redis hung). `onFallback` hears of each such count.
 */
export function sharedRateStore(redis: Redis, onFallback: (error: Error) => void): FastifyRateLimitStoreCtor {
  // after a failure Redis is left alone for a while: a hung Redis would otherwise cost every
  // request the command timeout (outside review: 250 ms each, for as long as it hung)
  let askAgainAt = 0;
  return class SharedRateStore implements FastifyRateLimitStore {
    private readonly shared = new RedisStore(false, false, redis, NAMESPACE);
    private readonly local = new LocalRateStore();

    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number, max: number): void {
      if (redis.status !== 'ready' || Date.now() < askAgainAt) {
        onFallback(new Error(redis.status !== 'ready' ? `Redis connection ${redis.status}` : 'Redis failed just before'));
        return this.local.incr(key, callback, timeWindow);
      }
      this.shared.incr(
        key,
        (error, result) => {
          if (error === null && result !== undefined) return callback(null, result);
          askAgainAt = Date.now() + RETRY_AFTER_MS;
          onFallback(error ?? new Error('no answer from Redis'));
          this.local.incr(key, callback, timeWindow);
        },
        timeWindow,
        max,
      );
    }

    /** one key space for every limiter: their keys are told apart by their own prefixes */
    child(): FastifyRateLimitStore {
      return new SharedRateStore();
    }
  };
}
