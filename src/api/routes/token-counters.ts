import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../../db/client.js';
import type { Hex } from '../../db/rows.js';
import { findToken } from '../../db/queries/holders.js';
import { ChainParams, errorResponses, KeyOnlyQuery } from '../schemas/common.js';
import { TokenCounters } from '../schemas/tokens.js';
import { notFound } from '../http-error.js';

/**
 * The reference's token counters, so clients (the CLI export's progress bar) learn the holder
 * count without walking the list. Transfers are not stored, hence null.
 */
export function tokenCountersRoute(app: FastifyInstance, db: Queryable): void {
  app.get<{ Params: ChainParams; Querystring: KeyOnlyQuery }>(
    '/:chain_id/api/v2/tokens/:address_hash_param/counters',
    {
      schema: {
        summary: 'Holder count of a token',
        tags: ['tokens'],
        params: ChainParams,
        querystring: KeyOnlyQuery,
        response: { 200: TokenCounters, ...errorResponses },
      },
    },
    async (request) => {
      const token = await findToken(db, request.chain.chainId, request.params.address_hash_param.toLowerCase() as Hex);
      if (!token) throw notFound();
      return { token_holders_count: token.holderCount.toString(), transfers_count: null };
    },
  );
}
