import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../../db/client.js';
import type { Hex } from '../../db/rows.js';
import { findToken } from '../../db/queries/holders.js';
import { ChainParams, errorResponses, KeyOnlyQuery } from '../schemas/common.js';
import { TokenObject } from '../schemas/tokens.js';
import { checksum } from '../views/checksum.js';
import { notFound } from '../http-error.js';

export function tokenRoute(app: FastifyInstance, db: Queryable): void {
  app.get<{ Params: ChainParams; Querystring: KeyOnlyQuery }>(
    '/:chain_id/api/v2/tokens/:address_hash_param',
    {
      schema: {
        summary: 'A token: name, symbol, decimals, type, holder count and total supply',
        description: 'Same shape as the hosted explorer\'s token object. Unknown token: 404.',
        tags: ['tokens'],
        params: ChainParams,
        querystring: KeyOnlyQuery,
        response: { 200: TokenObject, ...errorResponses },
      },
    },
    async (request) => {
      const address = request.params.address_hash_param.toLowerCase() as Hex;
      const token = await findToken(db, request.chain.chainId, address);
      if (!token) throw notFound();
      const hash = checksum(address);
      const holders = token.holderCount.toString();
      return {
        address: hash,
        address_hash: hash,
        circulating_market_cap: null,
        decimals: token.decimals === null ? null : String(token.decimals),
        exchange_rate: null,
        holders,
        holders_count: holders,
        icon_url: null,
        name: token.name,
        symbol: token.symbol,
        total_supply: token.totalSupply === null ? null : token.totalSupply.toString(),
        type: token.type,
        volume_24h: null,
      };
    },
  );
}
