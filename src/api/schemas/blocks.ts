import { Type, type Static } from '@sinclair/typebox';
import { AuthQuery, Nullable } from './common.js';

export const BlocksValidatedQuery = Type.Object(
  {
    ...AuthQuery,
    block_number: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  },
  { additionalProperties: false },
);
export type BlocksValidatedQuery = Static<typeof BlocksValidatedQuery>;

const L1Transaction = Nullable(
  Type.Object({ hash: Nullable(Type.String()), status: Nullable(Type.String()), timestamp: Nullable(Type.String()) }),
);

export const ArbitrumObject = Type.Object({
  batch_number: Nullable(Type.Integer()),
  status: Nullable(Type.String()),
  batch_data_container: Nullable(Type.String()),
  commitment_transaction: L1Transaction,
  confirmation_transaction: L1Transaction,
  delayed_messages: Nullable(Type.Integer()),
  l1_block_number: Nullable(Type.Integer()),
  send_count: Nullable(Type.Integer()),
  send_root: Nullable(Type.String()),
});

export const BlockObject = Type.Object(
  {
    hash: Type.String(),
    height: Type.Integer(),
    parent_hash: Type.String(),
    nonce: Type.String(),
    timestamp: Type.String({ format: 'date-time' }),
    type: Type.String({ description: 'block, uncle or reorg' }),
    miner: Type.Ref('Address'),
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
    arbitrum: Type.Optional(ArbitrumObject),
  },
  { $id: 'Block' },
);

export const BlocksValidatedPage = Type.Object(
  {
    items: Type.Array(Type.Ref('Block')),
    next_page_params: Nullable(
      Type.Object({ block_number: Type.Integer(), items_count: Type.Integer(), key: Type.Optional(Type.String()) }),
    ),
  },
  { $id: 'BlocksValidatedPage' },
);
