import type { HolderItem } from '../../db/queries/holders.js';
import { addressView } from './address.js';

export function holderView(item: HolderItem) {
  return {
    address: addressView(item.address),
    token_id: item.tokenId === null ? null : item.tokenId.toString(),
    value: item.value.toString(),
  };
}

/** Where the next page starts: the last item's keyset, plus token_id where (value, holder) repeats, and the past block the list is at. */
export function holdersNextPageParams(
  last: HolderItem,
  itemsCount: number,
  withTokenId: boolean,
  key: string | undefined,
  blockNumber?: number,
) {
  return {
    address_hash: last.address.hash,
    items_count: itemsCount,
    value: last.value.toString(),
    ...(withTokenId && last.tokenId !== null ? { token_id: last.tokenId.toString() } : {}),
    ...(blockNumber !== undefined ? { block_number: blockNumber } : {}),
    ...(key !== undefined ? { key } : {}),
  };
}
