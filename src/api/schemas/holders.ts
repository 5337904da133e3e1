import { Type, type Static } from '@sinclair/typebox';
import { AuthQuery, Hash, Nullable } from './common.js';
import { TOKEN_ID_MAX_LENGTH, TOKEN_ID_PATTERN } from '../limits.js';

/** A past block to answer at (issue 13): balances as of the end of that block. */
export const BlockNumberParam = Type.Integer({
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  description: 'answer as of the end of this block (at most the indexed block, at least where the kept history starts)',
});
import { AddressRef } from './address.js';

/** A token id as decimal digits (2^256 − 1 has 78). */
const tokenIdDigits = (description: string) => Type.String({ pattern: TOKEN_ID_PATTERN, maxLength: TOKEN_ID_MAX_LENGTH, description });

export const HoldersQuery = Type.Object(
  {
    ...AuthQuery,
    address_hash: Type.Optional(Hash),
    // The reference also accepts "" and the literal "null" (a NULL value key).
    value: Type.Optional(
      Type.Union([Type.String({ pattern: '^-?([1-9][0-9]*|0)$', maxLength: 80 }), Type.Literal(''), Type.Literal('null')]),
    ),
    token_id: Type.Optional(tokenIdDigits('ERC-1155 only: third paging value')),
    block_number: Type.Optional(BlockNumberParam),
    block_hash: Type.Optional(
      Type.String({
        pattern: '^0x[0-9a-fA-F]{64}$',
        description: "with block_number: that block's hash when paging began (next_page_params carries it); a page asked after a reorg replaced the block is refused, so that a list never mixes two branches",
      }),
    ),
  },
  { additionalProperties: false },
);
export type HoldersQuery = Static<typeof HoldersQuery>;

export const InstanceParams = Type.Object({
  chain_id: Type.String({ description: 'Chain id, e.g. 1 or 42161' }),
  address_hash_param: Hash,
  token_id: tokenIdDigits('the token id, in decimal'),
});
export type InstanceParams = Static<typeof InstanceParams>;

/**
 * The holders query. `token_id` is what next_page_params carries back, as the reference's do: the
 * path's id, not a paging value (within one id, value and address are a key).
 */
export const InstanceHoldersQuery = Type.Object(
  {
    ...AuthQuery,
    address_hash: HoldersQuery.properties.address_hash,
    value: HoldersQuery.properties.value,
    token_id: Type.Optional(tokenIdDigits("the path's id, as next_page_params carries it (not a paging value here)")),
    block_number: HoldersQuery.properties.block_number,
    block_hash: HoldersQuery.properties.block_hash,
  },
  { additionalProperties: false },
);
export type InstanceHoldersQuery = Static<typeof InstanceHoldersQuery>;

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
        block_number: Type.Optional(Type.Integer({ description: 'present when the list is at a past block: the next page stays on it' })),
        block_hash: Type.Optional(Type.String({ description: "with block_number: the block's hash, which the next page checks" })),
        key: Type.Optional(Type.String()),
      }),
    ),
  },
  { $id: 'HoldersPage' },
);
export type HoldersPage = Static<typeof HoldersPage>;
