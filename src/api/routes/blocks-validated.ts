import { PAGE_SIZE } from '../limits.js';
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../../db/client.js';
import type { Hex } from '../../db/rows.js';
import { blocksValidatedPage } from '../../db/queries/blocks.js';
import { ChainParams, errorResponses } from '../schemas/common.js';
import { BlocksValidatedPage, BlocksValidatedQuery } from '../schemas/blocks.js';
import { blocksNextPageParams } from '../views/block.js';
import { blocksPageJson, type BlocksPageView } from '../views/block-page-json.js';
import { addressView } from '../views/address.js';
import { okSerializer } from '../ok-serializer.js';


export function blocksValidatedRoute(app: FastifyInstance, db: Queryable): void {
  app.get<{ Params: ChainParams; Querystring: BlocksValidatedQuery }>(
    '/:chain_id/api/v2/addresses/:address_hash_param/blocks-validated',
    {
      config: { pageCache: true },
      schema: {
        summary: 'Blocks validated (mined) by an address, newest first',
        description:
          'Non-consensus blocks mined by the address are listed with type "reorg" or "uncle". An address that mined nothing gives an empty page, not 404.',
        tags: ['addresses'],
        params: ChainParams,
        querystring: BlocksValidatedQuery,
        response: { 200: BlocksValidatedPage, ...errorResponses },
      },
      // the stored part of each block is spliced as the indexer rendered it (views/block-page-json.ts)
      serializerCompiler: okSerializer(app, blocksPageJson),
    },
    async (request): Promise<BlocksPageView> => {
      const chain = request.chain;
      const size = request.query.items_count ?? PAGE_SIZE;
      const before = request.query.block_number;
      const page = await blocksValidatedPage(db, {
        chainId: chain.chainId,
        miner: request.params.address_hash_param.toLowerCase() as Hex,
        beforeNumber: before === undefined ? null : BigInt(before),
        limit: size + 1,
      });
      const items = page.items.slice(0, size);
      const last = items[items.length - 1];
      return {
        miner: page.miner === null ? null : addressView(page.miner),
        items,
        elasticity: chain.elasticity,
        next_page_params: page.items.length > size && last ? blocksNextPageParams(last.number, size, request.query.key) : null,
      };
    },
  );
}
