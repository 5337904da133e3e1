import { ok, TEXT } from './envelope.js';
import { addressParam, pageWindow } from './params.js';
import { holderRow, liveHolders } from './holder-rows.js';
import type { EtherscanAction } from './action.js';

/** The hosted explorer's page size for this action when `offset` is not sent. */
const DEFAULT_SIZE = '10';

/** That explorer's row, `{address, value}` (ERC-1155: `tokenId` too). */
const row = holderRow({ holder: 'address', value: 'value', tokenId: 'tokenId' });

/**
 * module=token&action=getTokenHolders: the hosted explorer's own holders call (its
 * Etherscan-style API has no tokenholderlist): the same list in the same order (richest first,
 * then by address, descending), 10 rows a page unless `offset` says, a `page` below 1 (0 or
 * negative) read as the first page as that explorer reads it (`max(page, 1)`), no `sort` (that
 * call takes none: one sent is ignored, the order stays richest first), and an empty page
 * `status "1"` with `[]`, as it answers.
 */
export const getTokenHolders: EtherscanAction = {
  module: 'token',
  action: 'getTokenHolders',
  summary: "a token's holders and balances, richest first, as the hosted explorer's own call answers them",
  parameters: {
    contractaddress: 'the token',
    page: 'page number, from 1 (0 or below: the first page)',
    offset: 'rows per page, at most 10000 (default 10)',
  },
  async run({ db, chainId, query }) {
    const token = addressParam(query, 'contractaddress', TEXT.contractAddress);
    const page = typeof query.page === 'string' && /^-?[0-9]{1,9}$/.test(query.page) && Number(query.page) < 1 ? '1' : query.page;
    const offset = query.offset === undefined || query.offset === '' ? DEFAULT_SIZE : query.offset;
    const paging = { ...query, page, offset, sort: undefined };
    const rows = await liveHolders(db, chainId, token, pageWindow(paging, { deep: true, sort: 'desc' }));
    return ok(rows.map(row));
  },
};
