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
      const read = (limit: number) =>
        blocksValidatedPage(db, {
          chainId: chain.chainId,
          miner: request.params.address_hash_param.toLowerCase() as Hex,
          beforeNumber: before === undefined ? null : BigInt(before),
          limit,
        });
      const { page, items, more } = await wholeHeights(read, size);
      const last = items[items.length - 1];
      return {
        miner: page.miner === null ? null : addressView(page.miner),
        items,
        elasticity: chain.elasticity,
        next_page_params: more && last ? blocksNextPageParams(last.number, size, request.query.key) : null,
      };
    },
  );
}

/** Rows read past a page's size when it ends inside a height, to finish it (an orphan beside the block that replaced it). */
export const TIE_ROOM = 4;

/**
 * A page that never ends inside a height. The next page starts below the last one's height
 * (`block_number`, the reference's cursor), so a page cut between two blocks of one height (a
 * block and the orphan a reorg left beside it, both by one miner: every reorged height of a
 * one-sequencer L2) lost the second for good (an outside review: 4 to 5 of 353 consensus
 * blocks gone in a walk). Such a page carries the whole height instead: a row or a few more
 * than `items_count`. A page reads `size + 1` rows, as before; only where the row past it is of
 * the same height (rare: a reorg at that very height) is it read again with room to finish the
 * height, and again with more while that room is all of that height.
 */
export async function wholeHeights<P extends { items: Array<{ number: bigint }> }>(
  read: (limit: number) => Promise<P>,
  size: number,
): Promise<{ page: P; items: P['items']; more: boolean }> {
  for (let room = 0; ; room = room === 0 ? TIE_ROOM : room * 8) {
    const page = await read(size + 1 + room);
    const rows = page.items;
    if (rows.length <= size) return { page, items: rows, more: false };
    const height = rows[size - 1]!.number;
    let end = size;
    while (end < rows.length && rows[end]!.number === height) end++;
    if (end < rows.length) return { page, items: rows.slice(0, end), more: true };
    if (rows.length < size + 1 + room) return { page, items: rows, more: false };
  }
}
