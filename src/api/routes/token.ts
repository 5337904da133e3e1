import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../../db/client.js';
import type { Hex } from '../../db/rows.js';
import { findToken } from '../../db/queries/holders.js';
import { ChainParams, KeyOnlyQuery } from '../schemas/common.js';
import { TokenObject } from '../schemas/tokens.js';
import { tokenView } from '../views/token.js';
import { notFound } from '../http-error.js';
import { getRoutes } from './get-route.js';

export function tokenRoute(app: FastifyInstance, db: Queryable): void {
  const get = getRoutes(app, { tags: ['tokens'], params: ChainParams, querystring: KeyOnlyQuery });
  get(
    '/:chain_id/api/v2/tokens/:address_hash_param',
    {
      summary: 'A token: name, symbol, decimals, type, holder count and total supply',
      description: 'Same shape as the hosted explorer\'s token object. Unknown token: 404.',
      response: TokenObject,
    },
    async (request) => {
      const address = request.params.address_hash_param.toLowerCase() as Hex;
      const token = await findToken(db, request.chain.chainId, address);
      if (!token) throw notFound();
      return tokenView(address, token);
    },
  );
}
