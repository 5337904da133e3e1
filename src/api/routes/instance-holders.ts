import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/client.js';
import type { Hex } from '../../db/rows.js';
import { PAGE_SIZE } from '../limits.js';
import { errorResponses } from '../schemas/common.js';
import { HoldersPage, InstanceHoldersQuery, InstanceParams } from '../schemas/holders.js';
import { holdersPageJson, type HoldersPageView } from '../views/holder.js';
import { okSerializer } from '../ok-serializer.js';
import { holdersPageView, readCursor, sourceOf } from '../holders-page.js';

/**
 * The holders of one token id of an ERC-1155 token, richest first: the hosted explorer's
 * instance holders list, same items and paging as the token's list; next_page_params carries the
 * id as the reference's does, and the cursor is value and address alone (a key within one id). A token of another
 * standard is a 404, as the reference answers for ERC-20; for ERC-721 the reference names the
 * id's owner, which this index does not keep (it counts an ERC-721 holder's tokens, not which).
 * With block_number, the holders of the id at the end of that block, as on the token's list.
 */
export function instanceHoldersRoute(app: FastifyInstance, db: Database): void {
  app.get<{ Params: InstanceParams; Querystring: InstanceHoldersQuery }>(
    '/:chain_id/api/v2/tokens/:address_hash_param/instances/:token_id/holders',
    {
      config: { pageCache: true },
      schema: {
        summary: 'Holders of one token id of an ERC-1155 token, largest balance first',
        description:
          'Keyset paging as on the token holders list: pass back next_page_params as query parameters. With block_number, the holders of the id as of the end of that block, every page of the same snapshot (as on the token holders list). 404 for a token that is not ERC-1155; an id nobody holds is an empty page.',
        tags: ['tokens'],
        params: InstanceParams,
        querystring: InstanceHoldersQuery,
        response: { 200: HoldersPage, ...errorResponses },
      },
      serializerCompiler: okSerializer(app, holdersPageJson),
    },
    async (request): Promise<HoldersPageView> => {
      const chainId = request.chain.chainId;
      const token = request.params.address_hash_param.toLowerCase() as Hex;
      // value and address alone: the query's token_id is the path's, not a third paging value
      const { value, address_hash } = request.query;
      const { source, block } = await sourceOf(db, chainId, token, request.query);
      return holdersPageView(db, {
        chainId,
        token,
        source,
        block,
        position: readCursor({ value, address_hash }),
        size: request.query.items_count ?? PAGE_SIZE,
        key: request.query.key,
        instance: BigInt(request.params.token_id),
        served: (type) => type === 'ERC-1155',
      });
    },
  );
}
