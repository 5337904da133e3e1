import { hash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ConfigError } from '../../config/config.js';
import { MAX_PARAMETER_LENGTH } from '../limits.js';
import type { ChainStatus } from '../../db/queries/chains.js';
import { HttpError, notFound } from '../http-error.js';
import type { Registry } from '../registry.js';
import type { Hex } from '../../db/rows.js';

declare module 'fastify' {
  interface FastifyRequest {
    chain: ChainStatus;
  }
}

interface ScopedParams {
  chain_id: string;
  address_hash_param: string;
}

/**
 * The addresses a request is about: the path's, or for the Etherscan-style calls on
 * /{chain_id}/api its `contractaddress` and `address` parameters.
 */
function scopedAddresses(request: FastifyRequest): string[] {
  const fromPath = (request.params as Partial<ScopedParams>).address_hash_param;
  if (fromPath !== undefined) return [fromPath];
  const query = request.query as Record<string, unknown>;
  return [query.contractaddress, query.address].filter((a): a is string => typeof a === 'string');
}

/**
 * The path's chain id, or on the routes without one the query's: `chainid` (Etherscan's V2
 * form) or `chain_id` (the hosted explorer's PRO form); both sent must agree.
 */
function chainIdOf(request: FastifyRequest): unknown {
  const fromPath = (request.params as Partial<ScopedParams>).chain_id;
  return fromPath !== undefined ? fromPath : queryChainId(request.query as Record<string, unknown>);
}

/** The query's chain id, `chainid` or `chain_id`; undefined when neither is sent or the two differ. */
export function queryChainId(query: Record<string, unknown>): unknown {
  const { chainid, chain_id: chainId } = query;
  if (chainid !== undefined && chainId !== undefined && chainid !== chainId) return undefined;
  return chainid ?? chainId;
}

const digest = (text: string) => hash('sha256', text, 'buffer');

/**
 * Whether `presented` is the secret, in time that does not depend on where they differ: both
 * are compared as SHA-256 digests (equal lengths) with timingSafeEqual.
 */
export function secretMatcher(secret: string | null): (presented: unknown) => boolean {
  if (secret === null) return () => false;
  if (secret.length > MAX_PARAMETER_LENGTH) {
    throw new ConfigError(`EXPLORER_RESTRICTED_KEY is longer than ${MAX_PARAMETER_LENGTH} characters: no request could carry it`);
  }
  const expected = digest(secret);
  return (presented) => typeof presented === 'string' && timingSafeEqual(digest(presented), expected);
}

/**
 * One hook for the keyed routes, before the parameters are validated: an unknown chain is a
 * 404 (as for an unknown path; the Etherscan-style routes answer it in their envelope), and a
 * restricted path address is a 403 unless `key` carries the operator's secret. Both come before validation so the page cache,
 * which runs next, may answer a repeated request without validating it again.
 */
export function chainScope(app: FastifyInstance, registry: Registry, restrictedKey: string | null): RestrictedInLists {
  const isSecret = secretMatcher(restrictedKey);
  app.decorateRequest('chain', null as unknown as ChainStatus);
  /** The scope's refusal of the request, if any, from the registry's last read. */
  const refusal = (request: FastifyRequest): Error | undefined => {
    const raw = chainIdOf(request);
    const chain = typeof raw === 'string' && /^[1-9][0-9]{0,15}$/.test(raw) ? registry.chainNow(Number(raw)) : undefined;
    if (!chain) return notFound();
    request.chain = chain;
    if (!registry.anyRestrictedNow(chain.chainId, scopedAddresses(request))) return undefined;
    return isSecret((request.query as { key?: unknown }).key) ? undefined : new HttpError(403, 'Restricted access');
  };
  // a callback hook, waiting only when the registry's read is due: it is on the cached page's path
  app.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
    // the account API is about the key, not a chain
    if (request.routeOptions.config.chainless) return done();
    const refresh = registry.due();
    if (refresh === null) return done(refusal(request));
    refresh.then(() => done(refusal(request)), done);
  });
  return async (request) => (isSecret((request.query as { key?: unknown }).key) ? [] : registry.restrictedOn(request.chain.chainId));
}

/**
 * The restricted addresses a list must leave out for this request (none when its `key` is the
 * secret): a restricted token named in no path still must not show through another address's
 * list of holdings, which asked for each holder would rebuild its holders.
 */
export type RestrictedInLists = (request: FastifyRequest) => Promise<Hex[]>;
