import type { FastifyInstance, FastifyRequest, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { HttpError } from '../http-error.js';
import { LocalRateStore } from './local-rate-store.js';

export interface RateLimitOptions {
  /** requests per second for keys without their own limit, and per client address without a valid key */
  defaultLimit: number;
  /** shared counters across API processes; in-process counters when absent */
  redis: Redis | null;
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
    ...(opts.redis ? { redis: opts.redis, nameSpace: 'explorer-rl:' } : { store: LocalRateStore }),
    // A Redis outage must not take the API down with it: requests pass unlimited meanwhile.
    skipOnError: true,
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
  // (The plugin's own key: the address, an IPv6 one cut to its /56, so a client cannot rotate
  // through its own range to get more.)
  app.decorate('limitByAddress', limit(app.createRateLimit({ timeWindow: windowMs, max: opts.defaultLimit })));
  // Its own key prefix: on Redis every limiter made here shares one key space, so the address
  // alone would count keyless requests against the unknown-key budget too. (Same /56 cut.)
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
