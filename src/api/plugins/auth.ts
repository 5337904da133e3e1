import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { KeyResolver, presentedKey, type ResolvedKey } from '../auth/key-resolver.js';
import { isWellFormedKey } from '../auth/key-format.js';
import { HttpError } from '../http-error.js';
import { KEYED_HEADERS } from './security-headers.js';
import { originAllowed } from './cors.js';
import { hashApiKey } from '../../db/queries/api-keys.js';
import type { Queryable } from '../../db/client.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: ResolvedKey | null;
    /** served without a key: keyless mode, a browser of an allowed origin (see authPlugin) */
    keyless: boolean;
  }
}

export interface AuthOptions {
  db: Queryable;
  staticKeys: string[];
  /** keyless mode: a request presenting no key whose Origin is one of these spends limitPublic instead */
  keylessOrigins?: ReadonlySet<string> | null;
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
 *
 * Keyless mode (opt-in): a request that presents no key at all and whose `Origin` is one of the
 * operator's CORS origins is served on its client address's own budget (limitPublic). A
 * presented key, valid or not, takes the paths above as before; `Origin` can be forged by any
 * non-browser client, which the per-address budget is there for; restricted addresses are
 * still decided by the `key` secret (chain-scope.ts), not by who asks.
 */
/** A question this request joined was refused by its asker's address limit: this one pays its own. */
const unlessLimited = (error: unknown): null => {
  if (error instanceof HttpError && error.statusCode === 429) return null;
  throw error;
};

export const authPlugin = fp(async (app: FastifyInstance, opts: AuthOptions) => {
  const resolver = new KeyResolver(opts.db, opts.staticKeys);
  const keylessOrigins = opts.keylessOrigins ?? null;
  app.decorateRequest('apiKey', null);
  app.decorateRequest('keyless', false);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    // (here rather than in a hook of its own: every hook costs on the cached-page path)
    reply.headers(KEYED_HEADERS);
    const presented = presentedKey(request.query, request.headers);
    // one key repeated in the query is that key: what validates the query sees it once
    const query = request.query as Record<string, unknown> | undefined;
    if (presented !== null && Array.isArray(query?.apikey)) query.apikey = presented;
    if (presented === null && keylessOrigins !== null && originAllowed(keylessOrigins, request.headers.origin)) {
      request.keyless = true;
      return app.limitPublic(request, reply);
    }
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
  app.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
    done(!request.apiKey && !request.keyless ? new HttpError(401, 'Invalid or missing API key') : undefined);
  });
});
