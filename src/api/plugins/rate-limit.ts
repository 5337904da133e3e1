import type { FastifyInstance, FastifyRequest, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { HttpError } from '../http-error.js';

export interface RateLimitOptions {
  /** requests per second for keys without their own limit */
  defaultLimit: number;
  /** shared counters across API processes; in-process counters when absent */
  redis: Redis | null;
  windowMs?: number;
}

/**
 * Counting and storage are @fastify/rate-limit's (its Redis store is atomic across processes);
 * the hook here only picks the budget per key and writes the headers, with the reset in
 * milliseconds as the reference sends it (the plugin's own header is in whole seconds).
 */
export const rateLimitPlugin = fp(async (app: FastifyInstance, opts: RateLimitOptions) => {
  const windowMs = opts.windowMs ?? 1_000;
  await app.register(rateLimit, {
    global: false,
    ...(opts.redis ? { redis: opts.redis, nameSpace: 'explorer-rl:' } : {}),
    // A Redis outage must not take the API down with it: requests pass unlimited meanwhile.
    skipOnError: true,
  });
  const check = app.createRateLimit({
    timeWindow: windowMs,
    max: (request: FastifyRequest) => request.apiKey?.rateLimit ?? opts.defaultLimit,
    // Unauthenticated callers share a budget per IP, so trying random keys costs them too.
    keyGenerator: (request: FastifyRequest) => (request.apiKey ? `key:${request.apiKey.id}` : `ip:${request.ip}`),
  });
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
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
  });
});
