/**
 * The holders page is written row by row (views/holder.ts, views/address-json.ts) instead of
 * through schema serializers over view objects. Its bytes must be what the route wrote before:
 * per row the address object's schema serializer (less `metadata` and `public_tags`) over
 * pageAddressView with the stored tags JSON spliced in last, then the item's schema serializer
 * for token_id and value; for every kind of row: an address the explorer does not know, a contract with
 * implementations (named, unnamed, several), a scam flag, an ENS name, a label, tags, strings
 * that need escaping, a key's private tag and watchlist names (the account hook's), an ERC-1155
 * token id, the largest uint256, and both ends of a page.
 */
import { Type } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';
import { describe, expect, it } from 'vitest';
import type { AddressInfo } from '../../src/db/queries/address-columns.js';
import type { Hex } from '../../src/db/rows.js';
import { AddressObject } from '../../src/api/schemas/address.js';
import { HolderItem as HolderItemSchema, HoldersPage } from '../../src/api/schemas/holders.js';
import { pageAddressView } from '../../src/api/views/address.js';
import { holderRowView, holdersPageJson, type HoldersPageView } from '../../src/api/views/holder.js';

const fieldsJson = fastJson(Type.Omit(AddressObject, ['metadata', 'public_tags']));
const itemRestJson = fastJson(Type.Omit(HolderItemSchema, ['address']));
const nextPageJson = fastJson(HoldersPage.properties.next_page_params);

/** The page as the route wrote it before (00b1a75): schema serializers over view objects. */
function before(page: HoldersPageView): string {
  const json = page.items.map((item) => {
    // the view as the account hook left it for a key with private entries
    const address = { ...pageAddressView(item.address.info), private_tags: item.address.private_tags, watchlist_names: item.address.watchlist_names };
    const rest = itemRestJson({ token_id: item.tokenId?.toString() ?? null, value: item.value.toString() });
    return `{"address":${fieldsJson(address).slice(0, -1)},${address.tagsJson}},${rest.slice(1)}`;
  });
  return `{"items":[${json.join(',')}],"next_page_params":${nextPageJson(page.next_page_params)}}`;
}

const hash = (n: number) => `0x${n.toString(16).padStart(40, 'a')}` as Hex;
const unknown = (n: number): AddressInfo => ({
  hash: hash(n),
  known: false,
  isContract: false,
  proxyType: null,
  implementations: [],
  name: null,
  isVerified: false,
  ensDomainName: null,
  isScam: false,
  tagsJson: null,
});
const TAGS =
  '"metadata":{"tags":[{"name":"Exchange \\"hot\\"","slug":"exchange","ordinal":1,"tagType":"name","meta":{"warpcastHandle":"x\\u0001y"}}]},' +
  '"public_tags":[{"address_hash":"0xabc","display_name":"Bin\\\\ance ☃","label":"binance"}]';
const rows: AddressInfo[] = [
  unknown(1),
  { ...unknown(2), known: true, isVerified: true },
  { ...unknown(3), known: true, isContract: true, proxyType: 'eip1967', implementations: [{ address_hash: hash(30), name: 'Impl "v2"' }], name: 'Proxy' },
  { ...unknown(4), known: true, isContract: true, proxyType: 'eip1822', implementations: [{ address_hash: hash(40), name: null }, { address_hash: hash(41).toUpperCase().replace('0X', '0x'), name: 'b\n\u2028\ud800' }] },
  { ...unknown(5), known: true, isScam: true, ensDomainName: 'vitalik.eth', name: 'Label\\with\tcontrols\u0000', tagsJson: TAGS },
  { ...unknown(6), known: true, isVerified: false, name: '長い名前 with emoji 🦊 and "quotes" past forty-two characters of length' },
];
const items = rows.map((address, i) =>
  holderRowView({ address, tokenId: i % 2 ? BigInt(i) * 10n ** 30n : null, value: i === 0 ? 2n ** 256n - 1n : BigInt(i) }),
);
// what account/private-data.ts sets for a key with entries on these addresses
items[2]!.address.private_tags = [{ address_hash: items[2]!.address.hash, display_name: 'my "cold" wallet', label: 'my "cold" wallet' }];
items[2]!.address.watchlist_names = [{ display_name: 'watch\\ed', label: 'watch\\ed' }];
items[5]!.address.watchlist_names = [{ display_name: 'w', label: 'w' }];

describe('holders page JSON', () => {
  it.each([
    ['a full page with a next page', { items, next_page_params: { address_hash: hash(6), items_count: 6, value: '5', token_id: '50', key: 'k"1' } }],
    ['the last page', { items, next_page_params: null }],
    ['an empty page', { items: [], next_page_params: null }],
    ['one row', { items: items.slice(4, 5), next_page_params: null }],
  ] as [string, HoldersPageView][])('%s: the bytes written before', (_name, page) => {
    const json = holdersPageJson(page);
    expect(json).toBe(before(page));
    JSON.parse(json);
  });
});
