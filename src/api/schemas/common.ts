import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { API_KEY_MAX_LENGTH, MAX_PARAMETER_LENGTH, PAGE_SIZE } from '../limits.js';

/** `type: [T, "null"]`: OpenAPI 3.1 style, and fast for the response serializer (no anyOf). */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Unsafe<T['static'] | null>({ ...schema, type: [schema.type, 'null'] });
}

/**
 * A `$ref` to a shared schema (one definition in the OpenAPI document, one compiled serializer)
 * that still types as the referenced schema, so views, the SDK and the web page are checked
 * against it.
 */
export function SharedRef<T extends TSchema>(schema: T) {
  if (schema.$id === undefined) throw new TypeError('a shared schema needs an $id');
  return Type.Unsafe<Static<T>>(Type.Ref(schema.$id));
}

export const HASH_PATTERN = '^0x([A-Fa-f0-9]{40})$';
export const Hash = Type.String({ pattern: HASH_PATTERN });

export const MessageBody = Type.Object({ message: Type.String() }, { $id: 'Message' });

export const ValidationErrorBody = Type.Object(
  {
    errors: Type.Array(
      Type.Object({
        title: Type.String(),
        source: Type.Object({ pointer: Type.String() }),
        detail: Type.String(),
      }),
    ),
  },
  { $id: 'ValidationErrors' },
);

export const ChainParams = Type.Object({
  chain_id: Type.String({ description: 'Chain id, e.g. 1 or 42161' }),
  address_hash_param: Hash,
});
export type ChainParams = Static<typeof ChainParams>;

/** The path parameters of a route about the chain itself. */
export const ChainOnlyParams = Type.Object({ chain_id: ChainParams.properties.chain_id });
export type ChainOnlyParams = Static<typeof ChainOnlyParams>;

/** Query parameters every data route takes besides its paging values. */
export const AuthQuery = {
  apikey: Type.Optional(
    Type.String({ maxLength: API_KEY_MAX_LENGTH, description: 'API key (or the x-api-key header, or Authorization: Bearer)' }),
  ),
  key: Type.Optional(Type.String({ maxLength: MAX_PARAMETER_LENGTH, description: 'Secret key giving access to restricted addresses' })),
  items_count: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE, description: `Page size, 1 to ${PAGE_SIZE} (default ${PAGE_SIZE})` })),
};

/** The query of a route that is not a page: the key parameters only. */
export const KeyOnlyQuery = Type.Object({ apikey: AuthQuery.apikey, key: AuthQuery.key }, { additionalProperties: false });
export type KeyOnlyQuery = Static<typeof KeyOnlyQuery>;

export const errorResponses = {
  401: { $ref: 'Message#' },
  403: { $ref: 'Message#' },
  404: { $ref: 'Message#' },
  422: { $ref: 'ValidationErrors#' },
  429: { $ref: 'Message#' },
  503: { $ref: 'Message#' },
};
