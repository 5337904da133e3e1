import { hash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ConfigError } from '../../config/config.js';
import { presentedKey } from '../auth/key-resolver.js';
import { isWellFormedKey } from '../auth/key-format.js';
import { HttpError } from '../http-error.js';
import { API_KEY_FORMAT_TEXT } from '../limits.js';

const digest = (text: string) => hash('sha256', text, 'buffer');

/**
 * The admin scope's gate: only a key of EXPLORER_ADMIN_KEYS passes, from a header (an `apikey`
 * in the query is refused whatever it holds). No key is 401; any other
 * key, a valid API key included, is 403 (API keys are accounts of customers, never operators).
 * Keys are compared as SHA-256 digests with timingSafeEqual, each against every admin key.
 * Every request first spends its client address's budget, so guessing admin keys is limited
 * like guessing API keys.
 */
export function adminAuth(app: FastifyInstance, adminKeys: readonly string[]): void {
  const expected = adminKeys.map((key, i) => {
    if (!isWellFormedKey(key)) throw new ConfigError(`EXPLORER_ADMIN_KEYS: entry ${i + 1} is not a valid key (${API_KEY_FORMAT_TEXT})`);
    return digest(key);
  });
  app.addHook('onRequest', async (request: FastifyRequest, reply) => {
    await app.limitByAddress(request, reply);
    // an operator's key in a URL would sit in proxies' and browsers' histories: headers only
    if ((request.query as Record<string, unknown>).apikey !== undefined) throw new HttpError(401, 'Admin keys go in the x-api-key header or Authorization: Bearer, never in the URL');
    const presented = presentedKey(undefined, request.headers);
    if (presented === null) throw new HttpError(401, 'Admin key required');
    const d = digest(presented);
    let ok = false;
    for (const e of expected) ok = timingSafeEqual(d, e) || ok;
    if (!ok) throw new HttpError(403, 'Not an admin key');
  });
}
