import fastJson from 'fast-json-stringify';
import type { AddressInfo } from '../../db/queries/address-columns.js';
import { AddressObject } from '../schemas/address.js';
import { checksum } from './checksum.js';
import { NO_TAGS } from './address.js';

const NONE: readonly never[] = Object.freeze([]);

/**
 * A page row's address as a route answers it: the row as read, its checksummed hash, and the
 * two per-key slots the account hook fills for keys with private entries
 * (account/private-data.ts finds objects with `hash`, `private_tags` and `watchlist_names`,
 * and replaces the arrays; the shared empty ones are never written to).
 */
export interface PageRowAddress {
  hash: string;
  info: AddressInfo;
  private_tags: AddressObject['private_tags'];
  watchlist_names: AddressObject['watchlist_names'];
}

export function pageRowAddress(info: AddressInfo): PageRowAddress {
  return { hash: checksum(info.hash), info, private_tags: NONE as never[], watchlist_names: NONE as never[] };
}

/** A JSON string or null, as the schema's serializer writes it (fast-json-stringify falls back to JSON.stringify). */
const text = (s: string | null | undefined) => (s === null || s === undefined ? 'null' : JSON.stringify(s));
// the per-key entries, when a key has any: their schemas' serializers
const privateTagsJson = fastJson(AddressObject.properties.private_tags);
const watchlistJson = fastJson(AddressObject.properties.watchlist_names);

/**
 * A page row's address object (schema Address: its key order, `metadata` and `public_tags`
 * last) as JSON, written straight from the row the database returned: no view object per row
 * for a serializer to walk, which with the serializers was a sixth of an uncached holders
 * request's Node time (BENCHMARKS.md, issue 14 item 5). The fields are pageAddressView's
 * (views/address.ts); `metadata` and `public_tags` are the wire JSON the database keeps,
 * spliced in as they are. test/api/address-json.test.ts holds the bytes equal to the schema
 * serializer's over pageAddressView for every kind of row.
 */
export function addressInfoJson(row: PageRowAddress): string {
  const a = row.info;
  let implementations = '';
  for (const i of a.implementations) {
    const hash = JSON.stringify(checksum(i.address_hash));
    // `address`: the reference's earlier name for address_hash, still in its recordings
    implementations += `${implementations === '' ? '' : ','}{"address_hash":${hash},"address":${hash},"name":${text(i.name)}}`;
  }
  const privateTags = row.private_tags.length === 0 ? '[]' : privateTagsJson(row.private_tags);
  const watchlist = row.watchlist_names.length === 0 ? '[]' : watchlistJson(row.watchlist_names);
  return (
    `{"hash":${JSON.stringify(row.hash)},"ens_domain_name":${text(a.ensDomainName)},"name":${text(a.name)},` +
    `"implementations":[${implementations}],"implementation_name":${text(a.implementations[0]?.name ?? null)},` +
    `"is_contract":${a.isContract},"is_scam":${a.isScam},"is_verified":${a.known ? a.isVerified : null},` +
    `"proxy_type":${text(a.proxyType)},"reputation":"${a.isScam ? 'scam' : 'ok'}","private_tags":${privateTags},` +
    `"watchlist_names":${watchlist},${a.tagsJson ?? NO_TAGS}}`
  );
}
