import type { AddressInfo } from '../../db/queries/address-columns.js';
import type { AddressObject } from '../schemas/address.js';
import { checksum } from './checksum.js';

/** `metadata` and `public_tags` of an address with no tags, as wire JSON. */
export const NO_TAGS = '"metadata":null,"public_tags":[]';

/**
 * The address object less `metadata` and `public_tags`, which stay the wire JSON the database
 * keeps (`tagsJson`): page serializers splice it in as it is (address-json.ts).
 */
export type PageAddress = Omit<AddressObject, 'metadata' | 'public_tags'> & { tagsJson: string };

export function pageAddressView(a: AddressInfo): PageAddress {
  const hash = checksum(a.hash);
  return {
    hash,
    ens_domain_name: a.ensDomainName,
    name: a.name,
    implementations: a.implementations.map((i) => {
      const address = checksum(i.address_hash);
      // `address`: the reference's earlier name for address_hash, still in its recordings
      return { address_hash: address, address, name: i.name };
    }),
    // the reference's earlier single-implementation field, still in its recordings
    implementation_name: a.implementations[0]?.name ?? null,
    is_contract: a.isContract,
    is_scam: a.isScam,
    is_verified: a.known ? a.isVerified : null,
    proxy_type: a.proxyType,
    reputation: a.isScam ? 'scam' : 'ok',
    private_tags: [],
    watchlist_names: [],
    tagsJson: a.tagsJson ?? NO_TAGS,
  };
}

/** The address object (spec 2.3), with whatever the indexer knows filled in, for answers serialized from their schema. */
export function addressView(a: AddressInfo): AddressObject {
  const { tagsJson, ...fields } = pageAddressView(a);
  return { ...fields, ...(JSON.parse(`{${tagsJson}}`) as Pick<AddressObject, 'metadata' | 'public_tags'>) };
}
