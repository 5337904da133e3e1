import { Type, type Static } from '@sinclair/typebox';
import { API_KEY_MAX_LENGTH, PAGE_SIZE } from '../limits.js';
import { HASH_PATTERN } from './common.js';

/** Per key and kind; the name's bounds are the reference's (1 to 35 characters). */
export const ACCOUNT_LIMITS = { entriesPerKind: 2_000, nameLength: 35, pageSize: PAGE_SIZE } as const;

export const AccountEntryBody = Type.Object(
  {
    address_hash: Type.String({ pattern: HASH_PATTERN }),
    name: Type.String({ minLength: 1, maxLength: ACCOUNT_LIMITS.nameLength }),
  },
  { additionalProperties: false },
);
export type AccountEntryBody = Static<typeof AccountEntryBody>;

export const AccountEntryObject = Type.Object({
  id: Type.Integer(),
  address_hash: Type.String({ description: 'EIP-55 checksummed' }),
  name: Type.String(),
});

export const AccountEntriesPage = Type.Object({
  items: Type.Array(AccountEntryObject),
  next_page_params: Type.Union([Type.Object({ id: Type.Integer(), items_count: Type.Integer() }), Type.Null()]),
});
export type AccountEntriesPage = Static<typeof AccountEntriesPage>;

export const AccountListQuery = Type.Object(
  {
    apikey: Type.Optional(Type.String({ maxLength: API_KEY_MAX_LENGTH })),
    id: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'paging value: entries older than this id' })),
    items_count: Type.Optional(Type.Integer({ minimum: 1, maximum: ACCOUNT_LIMITS.pageSize })),
  },
  { additionalProperties: false },
);
export type AccountListQuery = Static<typeof AccountListQuery>;

export const AccountIdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });
export type AccountIdParams = Static<typeof AccountIdParams>;

export const AccountKeyQuery = Type.Object({ apikey: Type.Optional(Type.String({ maxLength: API_KEY_MAX_LENGTH })) }, { additionalProperties: false });
