import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { KeyResolver, presentedKey, type ResolvedKey } from '../auth/key-resolver.js';
import { HttpError } from '../http-error.js';
import type { Queryable } from '../../db/client.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: ResolvedKey | null;
  }
}

/**
 * Resolves the key early (the rate limiter needs it to pick the budget) but rejects a missing
 * or wrong key only after the limiter ran, so 401 answers carry the rate-limit headers too.
 */
export const authPlugin = fp(async (app: FastifyInstance, opts: { db: Queryable; staticKeys: string[] }) => {
  const resolver = new KeyResolver(opts.db, opts.staticKeys);
  app.decorateRequest('apiKey', null);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const key = presentedKey(request.query, request.headers);
    request.apiKey = key === null ? null : await resolver.resolve(key);
  });
  app.addHook('preValidation', async (request: FastifyRequest) => {
    if (!request.apiKey) throw new HttpError(401, 'Invalid or missing API key');
  });
});
