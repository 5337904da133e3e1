import { Type, type Static } from '@sinclair/typebox';
import { KEY_NAME_MAX_LENGTH, KEY_RATE_LIMIT_MAX } from '../../db/queries/api-keys.js';
import { Nullable } from './common.js';
import { ONE_LINE_NAME } from '../../db/text.js';

const KEY_ID = { minimum: 1, maximum: Number.MAX_SAFE_INTEGER } as const;
const PAGE_MAX = 1_000;
export const KEYS_PAGE_DEFAULT = 100;

/** A key as `explorer keys list` shows it: never the key, nor its digest. */
export const ApiKeyView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  prefix: Type.String({ description: 'the first 8 characters of the key, to recognise it by' }),
  rate_limit: Nullable(Type.Integer({ description: "requests per second; null: the server's default (rateLimit)" })),
  created_at: Type.String({ format: 'date-time' }),
  revoked_at: Nullable(Type.String({ format: 'date-time' })),
});
export type ApiKeyView = Static<typeof ApiKeyView>;

export const KeysQuery = Type.Object(
  {
    apikey: Type.Optional(Type.String({ maxLength: 256 })),
    after_id: Type.Optional(Type.Integer({ ...KEY_ID, description: 'paging value: keys after this id' })),
    items_count: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_MAX, description: `page size, 1 to ${PAGE_MAX} (default ${KEYS_PAGE_DEFAULT})` })),
  },
  { additionalProperties: false },
);
export type KeysQuery = Static<typeof KeysQuery>;

export const KeysPage = Type.Object({
  items: Type.Array(ApiKeyView),
  next_page_params: Type.Union([Type.Object({ after_id: Type.Integer(), items_count: Type.Integer() }), Type.Null()]),
});

export const NewKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: KEY_NAME_MAX_LENGTH, pattern: ONE_LINE_NAME, description: 'who or what the key is for (one line: no control characters)' }),
    rate_limit: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: KEY_RATE_LIMIT_MAX, description: "requests per second; absent or null: the server's rateLimit" }))),
  },
  { additionalProperties: false },
);
export type NewKeyBody = Static<typeof NewKeyBody>;

export const NewKey = Type.Composite([ApiKeyView, Type.Object({ key: Type.String({ description: 'the key: shown in this answer only, stored hashed' }) })]);

export const KeyParams = Type.Object({ id: Type.Integer(KEY_ID) });
export type KeyParams = Static<typeof KeyParams>;
