import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/client.js';
import type { Hex } from '../../db/rows.js';
import { findToken, holdersPage } from '../../db/queries/holders.js';
import { PAGE_SIZE } from '../limits.js';
import { errorResponses } from '../schemas/common.js';
import { HoldersPage, InstanceHoldersQuery, InstanceParams } from '../schemas/holders.js';
import { holderRowView, holdersNextPageParams, holdersPageJson, type HoldersPageView } from '../views/holder.js';
import { okSerializer } from '../ok-serializer.js';
import { notFound } from '../http-error.js';
import { readCursor } from './holders.js';

/**
 * The holders of one token id of an ERC-1155 token, richest first: the hosted explorer's
 * instance holders list, same items and paging as the token's list; next_page_params carries the
 * id as the reference's does, and the cursor is value and address alone (a key within one id). A token of another
 * standard is a 404, as the reference answers for ERC-20; for ERC-721 the reference names the
 * id's owner, which this index does not keep (it counts an ERC-721 holder's tokens, not which).
 * Live balances only: no block_number.
 */
export function instanceHoldersRoute(app: FastifyInstance, db: Database): void {
  app.get<{ Params: InstanceParams; Querystring: InstanceHoldersQuery }>(
    '/:chain_id/api/v2/tokens/:address_hash_param/instances/:token_id/holders',
    {
      config: { pageCache: true },
      schema: {
        summary: 'Holders of one token id of an ERC-1155 token, largest balance first',
        description:
          'Keyset paging as on the token holders list: pass back next_page_params as query parameters. 404 for a token that is not ERC-1155; an id nobody holds is an empty page.',
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
      const position = readCursor(request.query);
      // (a NULL-value key: only confidential tokens have one, so that page is empty)
      if (position.kind === 'null-value') {
        if ((await findToken(db, chainId, token))?.type !== 'ERC-1155') throw notFound();
        return { items: [], next_page_params: null };
      }
      const size = request.query.items_count ?? PAGE_SIZE;
      const page = await holdersPage(db, {
        chainId,
        token,
        instance: BigInt(request.params.token_id),
        after: position.kind === 'after' ? { value: position.cursor.value, holder: position.cursor.holder } : null,
        // one row past the page says whether a next page exists
        limit: size + 1,
      });
      if (page.tokenType !== 'ERC-1155') throw notFound();
      const items = page.holders.slice(0, size);
      const last = items[items.length - 1];
      return {
        items: items.map(holderRowView),
        next_page_params: page.holders.length > size && last ? holdersNextPageParams(last, size, true, request.query.key) : null,
      };
    },
  );
}
