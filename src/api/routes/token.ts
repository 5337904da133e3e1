import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { Queryable } from '../../db/client.js';
import type { Hex } from '../../db/rows.js';
import { findToken } from '../../db/queries/holders.js';
import { AuthQuery, ChainParams, Nullable, errorResponses } from '../schemas/common.js';
import { checksum } from '../views/checksum.js';
import { notFound } from '../http-error.js';

const TokenQuery = Type.Object({ apikey: AuthQuery.apikey, key: AuthQuery.key }, { additionalProperties: false });
type TokenQuery = Static<typeof TokenQuery>;

/**
 * The reference's token object, field for field (its recorded response has all thirteen): big
 * numbers and counts are strings there, so they are here; market data is always null, as no
 * price feed is indexed.
 */
export const TokenObject = Type.Object(
  {
    address: Type.String({ description: 'EIP-55 checksummed; older alias of address_hash' }),
    address_hash: Type.String({ description: 'EIP-55 checksummed' }),
    circulating_market_cap: Nullable(Type.String()),
    decimals: Nullable(Type.String({ description: 'integer as a string, as the reference sends it' })),
    exchange_rate: Nullable(Type.String()),
    holders: Type.String({ description: 'older alias of holders_count' }),
    holders_count: Type.String({ description: 'addresses with a positive balance, burn address excluded' }),
    icon_url: Nullable(Type.String()),
    name: Nullable(Type.String()),
    symbol: Nullable(Type.String()),
    total_supply: Nullable(Type.String({ description: 'in base units; null when the contract does not report it' })),
    type: Type.String({ description: 'ERC-20, ERC-721 or ERC-1155' }),
    volume_24h: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

export function tokenRoute(app: FastifyInstance, db: Queryable): void {
  app.get<{ Params: ChainParams; Querystring: TokenQuery }>(
    '/:chain_id/api/v2/tokens/:address_hash_param',
    {
      schema: {
        summary: 'A token: name, symbol, decimals, type, holder count and total supply',
        description: 'Same shape as the hosted explorer\'s token object. Unknown token: 404.',
        tags: ['tokens'],
        params: ChainParams,
        querystring: TokenQuery,
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
