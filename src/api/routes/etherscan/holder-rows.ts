import { holdersWindow, type HolderBalance } from '../../../db/queries/holders-window.js';
import type { Queryable } from '../../../db/client.js';
import type { Hex } from '../../../db/rows.js';
import { readWindow, type PageWindow } from './params.js';

/**
 * One window of a token's holders as indexed now, behind the deep-page gate: what
 * tokenholderlist and getTokenHolders both read (one gate key for the one list).
 */
export function liveHolders(db: Queryable, chainId: number, token: Hex, window: PageWindow): Promise<HolderBalance[]> {
  return readWindow(db, `holders:${chainId}:${token}`, window, () => holdersWindow(db, { chainId, token, ...window }));
}

/**
 * The row of one holder under an API's own field names; an ERC-1155 row also says its id (a
 * holder has one per id).
 */
export const holderRow =
  (names: { holder: string; value: string; tokenId: string }) =>
  (r: HolderBalance): Record<string, string> => ({
    [names.holder]: r.holder,
    [names.value]: r.value.toString(),
    ...(r.tokenId === null ? {} : { [names.tokenId]: r.tokenId.toString() }),
  });
