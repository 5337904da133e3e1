import type { FastifyInstance } from 'fastify';
import { PAGE_SIZE } from '../limits.js';
import type { Queryable } from '../../db/client.js';
import { BLOCK_LIST_TYPES, blocksListPage, type BlockListItem, type BlockListType } from '../../db/queries/blocks-list.js';
import { ChainOnlyParams, KeyOnlyQuery, errorResponses } from '../schemas/common.js';
import { BlocksListQuery, BlocksValidatedPage, LatestBlocks } from '../schemas/blocks.js';
import { blocksNextPageParams } from '../views/block.js';
import { blocksListJson, latestBlocksJson, type BlockListItemView, type BlocksListView } from '../views/block-page-json.js';
import { addressView } from '../views/address.js';
import { okSerializer } from '../ok-serializer.js';
import { wholeHeights } from './blocks-validated.js';

/** The reference's home page shows this many. */
const LATEST_BLOCKS = 4;

/** `type` as the reference reads it: any case; anything but uncle or reorg lists the consensus chain. */
function listType(type: string | undefined): BlockListType {
  const lower = type?.toLowerCase();
  return BLOCK_LIST_TYPES.find((t) => t === lower) ?? 'block';
}

const itemView = (item: BlockListItem): BlockListItemView => ({ ...item, miner: addressView(item.miner) });

/** `/blocks` (the reference's blocks list: by type, newest first, paged by height) and the home page's latest blocks. */
export function blocksListRoutes(app: FastifyInstance, db: Queryable): void {
  app.get<{ Params: ChainOnlyParams; Querystring: BlocksListQuery }>(
    '/:chain_id/api/v2/blocks',
    {
      config: { pageCache: true },
      schema: {
        summary: "The chain's blocks, newest first: the consensus chain, its uncles or its reorged blocks",
        description:
          'A page never ends inside a height: where reorged blocks share one, it carries the whole height (a row or a few more than items_count).',
        tags: ['blocks'],
        params: ChainOnlyParams,
        querystring: BlocksListQuery,
        response: { 200: BlocksValidatedPage, ...errorResponses },
      },
      serializerCompiler: okSerializer(app, blocksListJson),
    },
    async (request): Promise<BlocksListView> => {
      const chain = request.chain;
      const size = request.query.items_count ?? PAGE_SIZE;
      const before = request.query.block_number;
      const type = listType(request.query.type);
      const read = async (limit: number) => ({
        items: await blocksListPage(db, { chainId: chain.chainId, type, beforeNumber: before === undefined ? null : BigInt(before), limit }),
      });
      const { items, more } = await wholeHeights(read, size);
      const last = items[items.length - 1];
      return {
        items: items.map(itemView),
        elasticity: chain.elasticity,
        next_page_params: more && last ? blocksNextPageParams(last.number, size, request.query.key) : null,
      };
    },
  );

  app.get<{ Params: ChainOnlyParams; Querystring: KeyOnlyQuery }>(
    '/:chain_id/api/v2/main-page/blocks',
    {
      config: { pageCache: true },
      schema: {
        summary: `The ${LATEST_BLOCKS} latest blocks of the consensus chain, as the reference's home page shows them`,
        tags: ['blocks'],
        params: ChainOnlyParams,
        querystring: KeyOnlyQuery,
        response: { 200: LatestBlocks, ...errorResponses },
      },
      serializerCompiler: okSerializer(app, latestBlocksJson),
    },
    async (request): Promise<BlocksListView> => {
      const items = await blocksListPage(db, { chainId: request.chain.chainId, type: 'block', beforeNumber: null, limit: LATEST_BLOCKS });
      return { items: items.map(itemView), elasticity: request.chain.elasticity, next_page_params: null };
    },
  );
}
