import type { Database } from '../db/client.js';
import type { Hex, TokenType } from '../db/rows.js';
import { findToken, holdersPage, type HoldersCursor, type HoldersSource } from '../db/queries/holders.js';
import { consensusHashes, wasOrphaned } from '../db/queries/progress.js';
import type { HoldersQuery } from './schemas/holders.js';
import { holderRowView, holdersNextPageParams, type HoldersPageView } from './views/holder.js';
import { InvalidParameterError, notFound } from './http-error.js';
import { pastBlockOrRefuse } from './past-block.js';

// A holders page from its query to its view, shared by the token's list (routes/holders.ts) and
// one ERC-1155 id's (routes/instance-holders.ts).

export type Cursor = { kind: 'first' } | { kind: 'after'; cursor: HoldersCursor } | { kind: 'null-value' };

/**
 * Both halves of the keyset are needed; with one half missing the reference silently serves
 * the first page, and so do we. An empty or "null" value means a NULL-value key, which only
 * confidential tokens have: nothing here, so that page is empty.
 */
export function readCursor(q: Pick<HoldersQuery, 'value' | 'address_hash' | 'token_id'>): Cursor {
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

/**
 * Where the list is read: the live balances, or with `block_number` the balances at that block,
 * whose hash the next page will check. Refused as the reference refuses a bad parameter (422)
 * above the indexed block, below the kept history, or when a reorg replaced the block paging
 * began on (`block_hash`); a token that did not exist yet is a 404.
 */
export async function sourceOf(db: Database, chainId: number, token: Hex, q: Pick<HoldersQuery, 'block_number' | 'block_hash'>): Promise<{ source: HoldersSource; block?: { number: number; hash: string } }> {
  if (q.block_number === undefined) {
    if (q.block_hash !== undefined) throw new InvalidParameterError([{ param: 'block_hash', detail: 'block_hash goes with block_number' }]);
    return { source: { kind: 'live' } };
  }
  const block = BigInt(q.block_number);
  const hash = (await consensusHashes(db, chainId, block, block)).get(block) ?? null;
  const sent = q.block_hash?.toLowerCase();
  if (sent !== undefined && sent !== hash) {
    // a cursor's hash whose block a reorg replaced, or one that never was that block's
    const detail = (await wasOrphaned(db, chainId, block, sent))
      ? `block ${block} was replaced by a reorg after this paging began (it was ${sent}): start again from the first page`
      : `${sent} is not the hash of block ${block}: start again from the first page`;
    throw new InvalidParameterError([{ param: 'block_hash', detail }]);
  }
  await pastBlockOrRefuse(db, chainId, token, block);
  return { source: { kind: 'past', block }, ...(hash !== null ? { block: { number: q.block_number, hash } } : {}) };
}

export interface HoldersPageRead {
  chainId: number;
  token: Hex;
  position: Cursor;
  size: number;
  /** the restricted-address secret, echoed in next_page_params */
  key: string | undefined;
  source?: HoldersSource;
  /** a past block's number and hash, which next_page_params carries */
  block?: { number: number; hash: string } | undefined;
  /** only this token id's holders (an ERC-1155 instance) */
  instance?: bigint;
  /** the token standards this list serves: any other is a 404, as an unknown token is */
  served: (type: TokenType) => boolean;
}

/**
 * A holders page as the handlers answer it: read one row past its size (which says whether a
 * next page exists), or, for a NULL-value cursor, empty once the token is known.
 */
export async function holdersPageView(db: Database, read: HoldersPageRead): Promise<HoldersPageView> {
  const { chainId, token, position, size } = read;
  if (position.kind === 'null-value') {
    const found = await findToken(db, chainId, token);
    if (!found || !read.served(found.type)) throw notFound();
    return { items: [], next_page_params: null };
  }
  const page = await holdersPage(db, {
    chainId,
    token,
    after: position.kind === 'after' ? position.cursor : null,
    limit: size + 1,
    source: read.source,
    instance: read.instance,
  });
  if (page.tokenType === null || !read.served(page.tokenType)) throw notFound();
  const items = page.holders.slice(0, size);
  const last = items[items.length - 1];
  return {
    items: items.map(holderRowView),
    next_page_params:
      page.holders.length > size && last ? holdersNextPageParams(last, size, page.tokenType === 'ERC-1155', read.key, read.block) : null,
  };
}
