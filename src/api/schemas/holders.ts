import { Type, type Static } from '@sinclair/typebox';
import { AuthQuery, Hash, Nullable } from './common.js';
import { AddressRef } from './address.js';

export const HoldersQuery = Type.Object(
  {
    ...AuthQuery,
    address_hash: Type.Optional(Hash),
    // The reference also accepts "" and the literal "null" (a NULL value key).
    value: Type.Optional(
      Type.Union([Type.String({ pattern: '^-?([1-9][0-9]*|0)$', maxLength: 80 }), Type.Literal(''), Type.Literal('null')]),
    ),
    token_id: Type.Optional(
      Type.String({ pattern: '^(0|[1-9][0-9]*)$', maxLength: 78, description: 'ERC-1155 only: third paging value' }),
    ),
  },
  { additionalProperties: false },
);
export type HoldersQuery = Static<typeof HoldersQuery>;

export const HolderItem = Type.Object({
  address: AddressRef,
  token_id: Nullable(Type.String({ description: 'null except for ERC-1155 (and ERC-404)' })),
  value: Type.String(),
});

export const HoldersPage = Type.Object(
  {
    items: Type.Array(HolderItem),
    next_page_params: Nullable(
      Type.Object({
        address_hash: Type.String(),
        items_count: Type.Integer(),
        value: Type.String(),
        token_id: Type.Optional(Type.String()),
        key: Type.Optional(Type.String()),
      }),
    ),
  },
  { $id: 'HoldersPage' },
);
export type HoldersPage = Static<typeof HoldersPage>;
