import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../../db/client.js';
import type { Hex } from '../../db/rows.js';
import { findToken, holdersPage, type HoldersCursor } from '../../db/queries/holders.js';
import { ChainParams, errorResponses } from '../schemas/common.js';
import { HoldersPage, HoldersQuery } from '../schemas/holders.js';
import { holderView, holdersNextPageParams } from '../views/holder.js';
import { notFound } from '../http-error.js';

const DEFAULT_PAGE_SIZE = 50;

type Cursor = { kind: 'first' } | { kind: 'after'; cursor: HoldersCursor } | { kind: 'null-value' };

/**
 * Both halves of the keyset are needed; with one half missing the reference silently serves
 * the first page, and so do we. An empty or "null" value means a NULL-value key, which only
 * confidential tokens have: nothing here, so that page is empty.
 */
function readCursor(q: HoldersQuery): Cursor {
  if (q.value === undefined || q.address_hash === undefined) return { kind: 'first' };
  if (q.value === '' || q.value === 'null') return { kind: 'null-value' };
  return {
    kind: 'after',
    cursor: {
      value: BigInt(q.value),
      holder: q.address_hash.toLowerCase() as Hex,
      tokenId: q.token_id === undefined ? undefined : BigInt(q.token_id),
    },
  };
}

export function holdersRoute(app: FastifyInstance, db: Queryable): void {
  app.get<{ Params: ChainParams; Querystring: HoldersQuery }>(
    '/:chain_id/api/v2/tokens/:address_hash_param/holders',
    {
      config: { pageCache: true },
      schema: {
        summary: 'Holders of a token, largest balance first',
        description:
          'Keyset paging: pass back next_page_params as query parameters. For ERC-1155 tokens next_page_params also carries token_id, so no row is skipped at a page boundary.',
        tags: ['tokens'],
        params: ChainParams,
        querystring: HoldersQuery,
        response: { 200: HoldersPage, ...errorResponses },
      },
    },
    async (request) => {
      const chainId = request.chain.chainId;
      const token = request.params.address_hash_param.toLowerCase() as Hex;
      const position = readCursor(request.query);
      if (position.kind === 'null-value') {
        if (!(await findToken(db, chainId, token))) throw notFound();
        return { items: [], next_page_params: null };
      }
      const size = request.query.items_count ?? DEFAULT_PAGE_SIZE;
      // One row past the page says whether a next page exists.
      const page = await holdersPage(db, {
        chainId,
        token,
        after: position.kind === 'after' ? position.cursor : null,
        limit: size + 1,
      });
      if (page.tokenType === null) throw notFound();
      const items = page.holders.slice(0, size);
      const last = items[items.length - 1];
      return {
        items: items.map(holderView),
        next_page_params:
          page.holders.length > size && last
            ? holdersNextPageParams(last, size, page.tokenType === 'ERC-1155', request.query.key)
            : null,
      };
    },
  );
}
