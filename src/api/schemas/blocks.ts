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

export const BlocksListQuery = Type.Object(
  {
    ...BlocksValidatedQuery.properties,
    type: Type.Optional(
      Type.String({ maxLength: 16, description: 'block (the default: the consensus chain), uncle or reorg, in any case; anything else lists blocks, as the reference does' }),
    ),
  },
  { additionalProperties: false },
);
export type BlocksListQuery = Static<typeof BlocksListQuery>;

/** The block's properties in every variant: the list item and the single block. */
const blockProperties = {
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
  tx_fees: Type.String({ description: 'older name of transaction_fees, as the reference sent it' }),
  transactions_count: Type.Integer(),
  transaction_count: Type.Integer({ description: 'alias of transactions_count, as the reference sends both' }),
  tx_count: Type.Integer({ description: 'older name of transactions_count, as the reference sent it' }),
  internal_transactions_count: Nullable(Type.Integer()),
  withdrawals_count: Nullable(Type.Integer()),
  is_pending_update: Type.Boolean(),
  rewards: Type.Array(Type.Object({ reward: Type.String(), type: Type.String(), address_hash: Type.String() })),
  uncles_hashes: Type.Array(Type.Object({ hash: Type.String() })),
  blob_gas_used: Nullable(Type.String({ description: 'EIP-4844 header field; null before Cancun and on chains without it' })),
  excess_blob_gas: Nullable(Type.String({ description: 'EIP-4844 header field; null before Cancun and on chains without it' })),
  blob_transactions_count: Nullable(
    Type.Integer({ description: 'type-3 transactions; null only for blocks indexed before this field existed' }),
  ),
  blob_transaction_count: Nullable(Type.Integer({ description: 'alias of blob_transactions_count, as the reference sends both' })),
  blob_tx_count: Nullable(Type.Integer({ description: 'older name of blob_transactions_count, as the reference sent it' })),
  ...chainKindProperties(),
};

/** The block object (spec 2.5); a chain kind's property (e.g. `arbitrum`) only on its chains. */
export const BlockObject = Type.Object(blockProperties, { $id: 'Block' });
export type BlockObject = Static<typeof BlockObject>;

/**
 * `GET /blocks/{number or hash}`: the block object plus what the reference adds for one block
 * (blob gas price and burnt blob fees); rewards carry the reference's labels ("Miner Reward").
 */
export const SingleBlockObject = Type.Object(
  {
    ...blockProperties,
    blob_gas_price: Nullable(
      Type.String({
        description: "wei per blob gas: EIP-4844's formula over excess_blob_gas with the chain's blob schedule; null without excess_blob_gas",
      }),
    ),
    burnt_blob_fees: Type.String({ description: 'blob_gas_used × blob_gas_price, "0" when either is unknown' }),
  },
  { $id: 'SingleBlock' },
);
export type SingleBlockObject = Static<typeof SingleBlockObject>;

export const BlockParams = Type.Object({
  chain_id: Type.String({ description: 'Chain id, e.g. 1 or 42161' }),
  block_hash_or_number_param: Type.String({
    description: 'Block number (integer ≥ 0) or block hash (0x and 64 hex digits)',
    examples: ['12345', '0x767c2bfb3bdee3f78676c1285cd757bcd5d8c272cef2eb30d9733800a78c0b6d'],
  }),
});
export type BlockParams = Static<typeof BlockParams>;

/** 404 of the single-block route: a number whose block lost consensus also names that block. */
export const BlockNotFoundBody = Type.Object(
  {
    message: Type.String({ description: '"Not found", or "Block lost consensus"' }),
    hash: Type.Optional(Type.String({ description: 'the non-consensus block at that number' })),
  },
  { $id: 'BlockNotFound' },
);

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

/** The home page's latest blocks: a bare array. */
export const LatestBlocks = Type.Array(SharedRef(BlockObject));
