import type { AddressInfo } from '../../db/queries/address-columns.js';
import { checksum } from './checksum.js';

/** The address object (spec 2.3), with whatever the indexer knows filled in. */
export function addressView(a: AddressInfo) {
  const hash = checksum(a.hash);
  const metadataTags = a.tags.filter((t) => t.kind === 'metadata');
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
    metadata:
      metadataTags.length === 0
        ? null
        : {
            tags: metadataTags.map((t) => ({ name: t.name, slug: t.slug, ordinal: t.ordinal, tagType: t.tag_type, meta: t.meta })),
          },
    proxy_type: a.proxyType,
    reputation: a.isScam ? 'scam' : 'ok',
    private_tags: [],
    public_tags: a.tags
      .filter((t) => t.kind === 'public')
      .map((t) => ({ address_hash: hash, display_name: t.name, label: t.slug })),
    watchlist_names: [],
  };
}
