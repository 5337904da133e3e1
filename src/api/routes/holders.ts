import { PAGE_SIZE } from '../limits.js';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/client.js';
import type { Hex } from '../../db/rows.js';
import { ChainParams, errorResponses } from '../schemas/common.js';
import { HoldersPage, HoldersQuery } from '../schemas/holders.js';
import { holdersPageJson, type HoldersPageView } from '../views/holder.js';
import { okSerializer } from '../ok-serializer.js';
import { holdersPageView, readCursor, sourceOf } from '../holders-page.js';

export function holdersRoute(app: FastifyInstance, db: Database): void {
  app.get<{ Params: ChainParams; Querystring: HoldersQuery }>(
    '/:chain_id/api/v2/tokens/:address_hash_param/holders',
    {
      config: { pageCache: true },
      schema: {
        summary: 'Holders of a token, largest balance first',
        description:
          'Keyset paging: pass back next_page_params as query parameters. For ERC-1155 tokens next_page_params also carries token_id, so no row is skipped at a page boundary. With block_number, the holders and balances as of the end of that block; next_page_params carries it and the hash of that block, so every page is of the same snapshot, and a page asked after a reorg replaced that block is refused (422 on block_hash).',
        tags: ['tokens'],
        params: ChainParams,
        querystring: HoldersQuery,
        response: { 200: HoldersPage, ...errorResponses },
      },
      serializerCompiler: okSerializer(app, holdersPageJson),
    },
    async (request): Promise<HoldersPageView> => {
      const chainId = request.chain.chainId;
      const token = request.params.address_hash_param.toLowerCase() as Hex;
      const position = readCursor(request.query);
      const { source, block } = await sourceOf(db, chainId, token, request.query);
      const size = request.query.items_count ?? PAGE_SIZE;
      return holdersPageView(db, { chainId, token, position, size, key: request.query.key, source, block, served: () => true });
    },
  );
}
