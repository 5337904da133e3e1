import fastJson from 'fast-json-stringify';
import type { HolderItem } from '../../db/queries/holders.js';
import { HoldersPage } from '../schemas/holders.js';
import { addressInfoJson, pageRowAddress, type PageRowAddress } from './address-json.js';

/** Where the next page starts: the last item's keyset, plus token_id where (value, holder) repeats, and the past block the list is at. */
export function holdersNextPageParams(
  last: HolderItem,
  itemsCount: number,
  withTokenId: boolean,
  key: string | undefined,
  block?: { number: number; hash: string },
) {
  return {
    address_hash: last.address.hash,
    items_count: itemsCount,
    value: last.value.toString(),
    ...(withTokenId && last.tokenId !== null ? { token_id: last.tokenId.toString() } : {}),
    ...(block !== undefined ? { block_number: block.number, block_hash: block.hash } : {}),
    ...(key !== undefined ? { key } : {}),
  };
}

/** A holders row as the handler answers it: as read, its address with the per-key slots (address-json.ts). */
export interface HolderRowView {
  address: PageRowAddress;
  tokenId: bigint | null;
  value: bigint;
}

export const holderRowView = (item: HolderItem): HolderRowView => ({ address: pageRowAddress(item.address), tokenId: item.tokenId, value: item.value });

/** The page as the handler answers it, rendered by holdersPageJson. */
export interface HoldersPageView {
  items: HolderRowView[];
  next_page_params: ReturnType<typeof holdersNextPageParams> | null;
}

const nextPageJson = fastJson(HoldersPage.properties.next_page_params);

/**
 * The holders page (schema HoldersPage) as JSON, each item (schema HolderItem: address,
 * token_id, value) written from its row: the amounts are decimal digits, which JSON strings
 * carry unescaped. test/api/address-json.test.ts holds the bytes equal to what the schema
 * serializers wrote over view objects.
 */
export function holdersPageJson(page: HoldersPageView): string {
  let items = '';
  for (const item of page.items) {
    const tokenId = item.tokenId === null ? 'null' : `"${item.tokenId}"`;
    items += `${items === '' ? '' : ','}{"address":${addressInfoJson(item.address)},"token_id":${tokenId},"value":"${item.value}"}`;
  }
  return `{"items":[${items}],"next_page_params":${nextPageJson(page.next_page_params)}}`;
}
