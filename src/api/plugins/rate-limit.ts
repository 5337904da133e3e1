import type { FastifyInstance, FastifyRequest, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { HttpError } from '../http-error.js';
import { LocalRateStore } from './local-rate-store.js';
import { sharedRateStore } from './shared-rate-store.js';

export interface RateLimitOptions {
  /** requests per second for keys without their own limit, and per client address without a valid key */
  defaultLimit: number;
  /** shared counters across API processes; in-process counters when absent, or while it does not answer */
  redis: Redis | null;
  /** told each time Redis did not answer and a request was counted in this process instead */
  onRedisFallback?: (error: Error) => void;
  /** keyless mode's requests per second per client address; null: off */
  publicLimit?: number | null;
  windowMs?: number;
}

/** Counts one request against a budget: writes the headers, throws 429 when it is spent. */
export type Limit = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

declare module 'fastify' {
  interface FastifyInstance {
    /** the budget of the request's valid key (`request.apiKey`) */
    limitByKey: Limit;
    /** the budget of the client address, for requests without a valid key */
    limitByAddress: Limit;
    /** keyless mode's budget of the client address (publicLimit), apart from limitByAddress */
    limitPublic: Limit;
  }
}

/**
 * Counting and storage are @fastify/rate-limit's (its Redis store is atomic across processes);
 * here are the two budgets and the headers, with the reset in milliseconds as the reference
 * sends it (the plugin's own header is in whole seconds). Which budget a request spends, and
 * when, is the auth plugin's decision: an unknown key spends its address's budget before the
 * database is asked about it.
 */
export const rateLimitPlugin = fp(async (app: FastifyInstance, opts: RateLimitOptions) => {
  const windowMs = opts.windowMs ?? 1_000;
  await app.register(rateLimit, {
    global: false,
    // (a Redis outage must not take the API down, nor its limits: shared-rate-store.ts)
    store: opts.redis ? sharedRateStore(opts.redis, opts.onRedisFallback ?? (() => undefined)) : LocalRateStore,
  });
  const limit =
    (check: ReturnType<FastifyInstance['createRateLimit']>): Limit =>
    async (request, reply) => {
      const result = await check(request);
      if (result.isAllowed) return;
      const resetMs = result.ttl > 0 ? result.ttl : windowMs;
      reply.header('x-ratelimit-limit', result.max);
      reply.header('x-ratelimit-remaining', result.remaining);
      reply.header('x-ratelimit-reset', resetMs);
      if (result.isExceeded) {
        reply.header('retry-after', Math.ceil(resetMs / 1000));
        throw new HttpError(429, 'Too many requests');
      }
    };
  app.decorate(
    'limitByKey',
    limit(
      app.createRateLimit({
        timeWindow: windowMs,
        max: (request: FastifyRequest) => request.apiKey?.rateLimit ?? opts.defaultLimit,
        keyGenerator: (request: FastifyRequest) => `key:${request.apiKey?.id ?? ''}`,
      }),
    ),
  );
  // Callers without a valid key share a budget per address, so trying keys costs them too.
  // (An IPv6 address is cut to its /56, so a client cannot rotate through its own range to get
  // more.)
  app.decorate(
    'limitByAddress',
    limit(app.createRateLimit({ timeWindow: windowMs, max: opts.defaultLimit, keyGenerator: (request: FastifyRequest) => `address:${normalizeIP(request.ip, 56)}` })),
  );
  // Its own key prefix: on Redis every limiter shares one key space (the admin scope's address
  // budget is the API scope's there), so keyless requests must not count against the
  // unknown-key budget. (Same /56 cut.)
  app.decorate(
    'limitPublic',
    limit(
      app.createRateLimit({
        timeWindow: windowMs,
        max: opts.publicLimit ?? 1,
        keyGenerator: (request: FastifyRequest) => `public:${normalizeIP(request.ip, 56)}`,
      }),
    ),
  );
});
