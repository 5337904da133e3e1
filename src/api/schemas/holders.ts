import { Type, type Static } from '@sinclair/typebox';
import { AuthQuery, Hash, Nullable } from './common.js';

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

export const HoldersPage = Type.Object(
  {
    items: Type.Array(
      Type.Object({
        address: Type.Ref('Address'),
        token_id: Nullable(Type.String()),
        value: Type.String(),
      }),
    ),
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
