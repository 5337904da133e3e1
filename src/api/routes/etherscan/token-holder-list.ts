import { findToken } from '../../../db/queries/holders.js';
import { holdersWindow } from '../../../db/queries/holders-window.js';
import { EMPTY, noRecords, ok, TEXT } from './envelope.js';
import { addressParam, pageWindow, PAGING_PARAMETERS, readWindow } from './params.js';
import { optionalBlockno, pastTokenOrRefuse } from './past-block.js';
import { holderRow, liveHolders } from './holder-rows.js';
import type { EtherscanAction } from './action.js';

/** ERC-1155 rows also say which id (`TokenId`, as that API names a token id in its NFT lists). */
const row = holderRow({ holder: 'TokenHolderAddress', value: 'TokenHolderQuantity', tokenId: 'TokenId' });

/**
 * module=token&action=tokenholderlist: holders richest first, in the v2 list's order (ERC-1155:
 * one row per holder and token id, like that list, with the id). Any page may be read: each is one range
 * scan of token_balances_page that skips the rows before it, and a page past the token's
 * holder count is answered without one. An unknown token has no holders. With `blockno`, the
 * holders at that block, paged the same way over the balances at that block. A page past the
 * first 10,000 rows waits its turn at the deep-page gate (params.ts readWindow).
 */
export const tokenHolderList: EtherscanAction = {
  module: 'token',
  action: 'tokenholderlist',
  summary: "a token's holders and balances, richest first",
  parameters: { contractaddress: 'the token', ...PAGING_PARAMETERS, blockno: 'optional: the holders at the end of this block' },
  async run({ db, chainId, query }) {
    const token = addressParam(query, 'contractaddress', TEXT.contractAddress);
    const window = pageWindow(query, { deep: true, sort: 'desc' });
    const block = optionalBlockno(query);
    if (block !== undefined) {
      if ((await pastTokenOrRefuse(db, chainId, token, block)) === null) return noRecords(EMPTY.records);
      const rows = await readWindow(db, `holders:${chainId}:${token}:${block}`, window, () =>
        holdersWindow(db, { chainId, token, ...window, source: { kind: 'past', block } }),
      );
      if (rows.length === 0) return noRecords(EMPTY.records);
      return ok(rows.map(row));
    }
    if (window.offset > 0) {
      const found = await findToken(db, chainId, token);
      // (an ERC-1155 token has a row per holder and id: its holder count bounds nothing)
      if (!found || (found.type !== 'ERC-1155' && BigInt(window.offset) >= found.holderCount)) return noRecords(EMPTY.records);
    }
    const rows = await liveHolders(db, chainId, token, window);
    if (rows.length === 0) return noRecords(EMPTY.records);
    return ok(rows.map(row));
  },
};
