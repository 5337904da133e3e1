import { Type, type Static } from '@sinclair/typebox';
import { Nullable, SharedRef } from './common.js';

const Tag = Type.Object({
  address_hash: Type.String(),
  display_name: Type.String(),
  label: Type.String(),
});

export const AddressObject = Type.Object(
  {
    hash: Type.String({ description: 'EIP-55 checksummed' }),
    ens_domain_name: Nullable(Type.String()),
    name: Nullable(Type.String()),
    implementations: Type.Array(
      Type.Object({
        address_hash: Type.String(),
        address: Type.String({ description: 'older name of address_hash, as the reference sent it' }),
        name: Nullable(Type.String()),
      }),
    ),
    implementation_name: Nullable(Type.String({ description: 'older field: the first implementation\'s name' })),
    is_contract: Type.Boolean(),
    is_scam: Type.Boolean(),
    is_verified: Nullable(Type.Boolean({ description: 'null when nothing is known of the address' })),
    metadata: Nullable(
      Type.Object({
        tags: Type.Array(
          Type.Object({
            name: Type.String(),
            slug: Type.String(),
            ordinal: Type.Integer(),
            tagType: Type.String(),
            meta: Type.Record(Type.String(), Type.String()),
          }),
        ),
      }),
    ),
    proxy_type: Nullable(Type.String({ description: 'eip1167, eip1967, eip1822, eip1967_beacon, eip7702, …' })),
    reputation: Type.String({ description: '"ok", or "scam" when flagged' }),
    private_tags: Type.Array(Tag),
    public_tags: Type.Array(Tag),
    watchlist_names: Type.Array(Type.Object({ display_name: Type.String(), label: Type.String() })),
  },
  { $id: 'Address', additionalProperties: false },
);

export const AddressRef = SharedRef(AddressObject);
export type AddressObject = Static<typeof AddressObject>;
