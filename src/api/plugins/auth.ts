import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { KeyResolver, presentedKey, type ResolvedKey } from '../auth/key-resolver.js';
import { isWellFormedKey } from '../auth/key-format.js';
import { HttpError } from '../http-error.js';
import { KEYED_HEADERS } from './security-headers.js';
import { hashApiKey } from '../../db/queries/api-keys.js';
import type { Queryable } from '../../db/client.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: ResolvedKey | null;
  }
}

/**
 * Decides who a request is and which budget it spends, cheapest check first:
 * 1. no key or a malformed one (wrong characters, too short or long): no hash, no lookup;
 * 2. the key's digest in this process's caches: a valid key spends its own budget;
 * 3. a digest that was valid when last asked is asked again (revocation), and one the
 *    database is being asked about waits for that answer;
 * 4. any other digest spends its client address's budget first, and only if some is left is
 *    the database asked: guessing keys costs the guesser, not the database.
 * A request without a valid key spends its address's budget (once). It is rejected only at
 * preValidation, after the limiter wrote its headers, so 401 answers carry them too. Needs
 * rateLimitPlugin registered first.
 */
/** A question this request joined was refused by its asker's address limit: this one pays its own. */
const unlessLimited = (error: unknown): null => {
  if (error instanceof HttpError && error.statusCode === 429) return null;
  throw error;
};

export const authPlugin = fp(async (app: FastifyInstance, opts: { db: Queryable; staticKeys: string[] }) => {
  const resolver = new KeyResolver(opts.db, opts.staticKeys);
  app.decorateRequest('apiKey', null);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    // (here rather than in a hook of its own: every hook costs on the cached-page path)
    reply.headers(KEYED_HEADERS);
    const presented = presentedKey(request.query, request.headers);
    const digest = presented !== null && isWellFormedKey(presented) ? hashApiKey(presented) : null;
    let paid = false;
    const payAddress = () => {
      paid = true;
      return app.limitByAddress(request, reply);
    };
    const state = digest === null ? 'invalid' : resolver.state(digest);
    if (typeof state === 'object') request.apiKey = state;
    else if (state === 'unknown') request.apiKey = await resolver.lookup(digest!, payAddress);
    else if (state !== 'invalid') request.apiKey = await resolver.lookup(digest!).catch(unlessLimited);
    if (request.apiKey) return app.limitByKey(request, reply);
    if (!paid) await app.limitByAddress(request, reply);
  });
  app.addHook('preValidation', async (request: FastifyRequest) => {
    if (!request.apiKey) throw new HttpError(401, 'Invalid or missing API key');
  });
});
