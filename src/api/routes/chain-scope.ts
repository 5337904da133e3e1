import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ChainStatus } from '../../db/queries/chains.js';
import { HttpError, notFound } from '../http-error.js';
import type { Registry } from '../registry.js';

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
 * One hook for the routes under /{chain_id}/api/v2/…, before the parameters are validated: an
 * unknown chain is a 404 (as for an unknown path), and a restricted path address is a 403
 * unless `key` carries the operator's secret. Both come before validation so the page cache,
 * which runs next, may answer a repeated request without validating it again.
 */
export function chainScope(app: FastifyInstance, registry: Registry, restrictedKey: string | null): void {
  app.decorateRequest('chain', null as unknown as ChainStatus);
  app.addHook('preValidation', async (request: FastifyRequest) => {
    const raw = (request.params as ScopedParams).chain_id;
    const chain = /^[1-9][0-9]{0,15}$/.test(raw) ? await registry.chain(Number(raw)) : undefined;
    if (!chain) throw notFound();
    request.chain = chain;
    if (!(await registry.anyRestricted(chain.chainId, scopedAddresses(request)))) return;
    const key = (request.query as { key?: string }).key;
    if (restrictedKey === null || key !== restrictedKey) throw new HttpError(403, 'Restricted access');
  });
}
