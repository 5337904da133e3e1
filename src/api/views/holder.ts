import { Type } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';
import type { HolderItem } from '../../db/queries/holders.js';
import { HolderItem as HolderItemSchema, HoldersPage } from '../schemas/holders.js';
import { pageAddressView, type PageAddress } from './address.js';
import { addressJson } from './address-json.js';

export function holderView(item: HolderItem) {
  return {
    address: pageAddressView(item.address),
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

export interface HoldersPageView {
  items: Array<ReturnType<typeof holderView> & { address: PageAddress }>;
  next_page_params: ReturnType<typeof holdersNextPageParams> | null;
}

const itemRestJson = fastJson(Type.Omit(HolderItemSchema, ['address']));
const nextPageJson = fastJson(HoldersPage.properties.next_page_params);

/** The holders page (schema HoldersPage) as JSON, each address object through addressJson. */
export function holdersPageJson(page: HoldersPageView): string {
  const items = page.items.map((item) => `{"address":${addressJson(item.address)},${itemRestJson(item).slice(1)}`);
  return `{"items":[${items.join(',')}],"next_page_params":${nextPageJson(page.next_page_params)}}`;
}
