import { Type, type Static } from '@sinclair/typebox';
import { AuthQuery, Nullable, SharedRef } from './common.js';
import { AddressRef } from './address.js';
import { chainKindProperties } from '../../chains/index.js';

export const BlocksValidatedQuery = Type.Object(
  {
    ...AuthQuery,
    block_number: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  },
  { additionalProperties: false },
);
export type BlocksValidatedQuery = Static<typeof BlocksValidatedQuery>;

/** The block object (spec 2.5); a chain kind's property (e.g. `arbitrum`) only on its chains. */
export const BlockObject = Type.Object(
  {
    hash: Type.String(),
    height: Type.Integer(),
    parent_hash: Type.String(),
    nonce: Type.String(),
    timestamp: Type.String({ format: 'date-time' }),
    type: Type.String({ description: 'block, uncle or reorg' }),
    miner: AddressRef,
    size: Type.Integer(),
    difficulty: Type.String(),
    total_difficulty: Nullable(Type.String()),
    gas_limit: Type.String(),
    gas_used: Type.String(),
    gas_used_percentage: Type.Number(),
    gas_target_percentage: Type.Number(),
    base_fee_per_gas: Nullable(Type.String()),
    burnt_fees: Type.String(),
    burnt_fees_percentage: Nullable(Type.Number()),
    priority_fee: Type.String(),
    transaction_fees: Type.String(),
    transactions_count: Type.Integer(),
    transaction_count: Type.Integer({ description: 'alias of transactions_count, as the reference sends both' }),
    internal_transactions_count: Nullable(Type.Integer()),
    withdrawals_count: Nullable(Type.Integer()),
    is_pending_update: Type.Boolean(),
    rewards: Type.Array(Type.Object({ reward: Type.String(), type: Type.String(), address_hash: Type.String() })),
    uncles_hashes: Type.Array(Type.Object({ hash: Type.String() })),
    ...chainKindProperties(),
  },
  { $id: 'Block' },
);
export type BlockObject = Static<typeof BlockObject>;

export const BlocksValidatedPage = Type.Object(
  {
    items: Type.Array(SharedRef(BlockObject)),
    next_page_params: Nullable(
      Type.Object({ block_number: Type.Integer(), items_count: Type.Integer(), key: Type.Optional(Type.String()) }),
    ),
  },
  { $id: 'BlocksValidatedPage' },
);
export type BlocksValidatedPage = Static<typeof BlocksValidatedPage>;
