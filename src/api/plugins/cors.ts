import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import cors from '@fastify/cors';

/** Whether `origin` (a request's `Origin` header) is one of the operator's, compared exactly. */
export function originAllowed(allowed: ReadonlySet<string>, origin: string | undefined): boolean {
  return origin !== undefined && origin.length <= 2_048 && allowed.has(origin.toLowerCase());
}

/**
 * CORS for the operator's allowlist (`corsOrigins`), through @fastify/cors: preflights are
 * answered before any key check (a browser sends no key with them), and an allowed origin's
 * answers, errors and 429s included, carry `Access-Control-Allow-Origin` with `Vary: Origin`.
 * Any other origin gets no CORS header, so a browser there cannot read the answer. No
 * credentials: keys travel in the query or a header, never in cookies.
 */
export const corsPlugin = fp(async (app: FastifyInstance, opts: { origins: readonly string[] }) => {
  if (opts.origins.length === 0) return;
  const allowed = new Set(opts.origins);
  await app.register(cors, {
    origin: (origin, callback) => callback(null, originAllowed(allowed, origin)),
    methods: ['GET', 'HEAD'],
    // the rate-limit headers, so a page can back off
    exposedHeaders: ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after'],
    maxAge: 600,
  });
});
