import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/client.js';
import type { Hex } from '../../db/rows.js';
import { findToken } from '../../db/queries/holders.js';
import { ChainParams } from '../schemas/common.js';
import { TokenCounters, TokenCountersQuery } from '../schemas/tokens.js';
import { notFound } from '../http-error.js';
import { pastBlockOrRefuse } from '../past-block.js';
import { summaryAt } from '../../db/queries/balance-history.js';
import { getRoutes } from './get-route.js';

/**
 * The reference's token counters, so clients (the CLI export's progress bar) learn the holder
 * count without walking the list, and the token's transfers (migration 032; null when not known).
 * With `block_number`: the holder count at that block, and an ERC-20's total supply there (the
 * sum of its balances), counted once per block and kept (balance-history.ts summaryAt), refused
 * as the holders list refuses it; transfers are not counted per block, so null there.
 */
export function tokenCountersRoute(app: FastifyInstance, db: Database): void {
  const get = getRoutes(app, { tags: ['tokens'], params: ChainParams, querystring: TokenCountersQuery });
  get(
    '/:chain_id/api/v2/tokens/:address_hash_param/counters',
    { summary: 'Holder count of a token', response: TokenCounters },
    async (request) => {
      const address = request.params.address_hash_param.toLowerCase() as Hex;
      if (request.query.block_number !== undefined) {
        const block = BigInt(request.query.block_number);
        const tokenType = await pastBlockOrRefuse(db, request.chain.chainId, address, block);
        const summary = await summaryAt(db, request.chain.chainId, address, tokenType, block);
        return {
          token_holders_count: summary.holderCount.toString(),
          transfers_count: null,
          ...(tokenType === 'ERC-20' ? { total_supply: summary.total.toString() } : {}),
        };
      }
      const token = await findToken(db, request.chain.chainId, address);
      if (!token) throw notFound();
      return { token_holders_count: token.holderCount.toString(), transfers_count: token.transfersCount?.toString() ?? null };
    },
  );
}
