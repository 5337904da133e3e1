import { Type, type Static } from '@sinclair/typebox';
import { LabelEntry } from '../../labels/entry.js';
import { HASH_PATTERN } from './common.js';

export const LabelsQuery = Type.Object(
  {
    apikey: Type.Optional(Type.String({ maxLength: 256 })),
    chain_id: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'only this chain' })),
    address: Type.Optional(Type.String({ pattern: HASH_PATTERN, description: 'only this address' })),
    after_chain_id: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'paging value' })),
    after_address: Type.Optional(Type.String({ pattern: HASH_PATTERN, description: 'paging value' })),
    items_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000, description: 'page size, 1 to 1000 (default 100)' })),
  },
  { additionalProperties: false },
);
export type LabelsQuery = Static<typeof LabelsQuery>;

export const LabelsPage = Type.Object({
  items: Type.Array(LabelEntry),
  next_page_params: Type.Union([
    Type.Object({ after_chain_id: Type.Integer(), after_address: Type.String(), items_count: Type.Integer() }),
    Type.Null(),
  ]),
});

export const LabelParams = Type.Object({
  chain_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  address: Type.String({ pattern: HASH_PATTERN }),
});
export type LabelParams = Static<typeof LabelParams>;

export const ImportedBody = Type.Object({ imported: Type.Integer({ description: 'entries applied (all of the body)' }) });
