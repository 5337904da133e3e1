import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from './common.js';

const notIndexed = (what: string) => ({ description: `${what}: not indexed here, always null` });

/**
 * The reference's `/stats`, from the blocks we hold: counts and averages where the blocks give
 * them, null for prices, gas tiers and totals we do not keep.
 */
export const StatsObject = Type.Object(
  {
    average_block_time: Nullable(Type.Number({ description: 'milliseconds, over the last 100 indexed blocks; null with fewer than 2' })),
    coin_image: Nullable(Type.String(notIndexed('prices'))),
    coin_price: Nullable(Type.String(notIndexed('prices'))),
    coin_price_change_percentage: Nullable(Type.Number(notIndexed('prices'))),
    gas_price_updated_at: Nullable(Type.String(notIndexed('gas price tiers'))),
    gas_prices: Nullable(
      Type.Object({ slow: Type.Number(), average: Type.Number(), fast: Type.Number() }, notIndexed('gas price tiers (per-transaction prices)')),
    ),
    gas_prices_update_in: Nullable(Type.Number(notIndexed('gas price tiers'))),
    gas_used_today: Type.String({ description: 'gas used by the consensus blocks of the last 24 hours' }),
    market_cap: Nullable(Type.String(notIndexed('prices'))),
    network_utilization_percentage: Nullable(Type.Number({ description: 'mean gas used / gas limit × 100 over the last 100 indexed blocks' })),
    secondary_coin_image: Nullable(Type.String(notIndexed('prices'))),
    secondary_coin_price: Nullable(Type.String(notIndexed('prices'))),
    static_gas_price: Nullable(Type.String(notIndexed('a configured gas price'))),
    total_addresses: Nullable(Type.String(notIndexed('every address of the chain'))),
    total_blocks: Type.String({ description: 'consensus blocks indexed (from the first indexed one to the last)' }),
    total_gas_used: Nullable(Type.String(notIndexed('a running gas total'))),
    total_transactions: Nullable(Type.String(notIndexed('a running transaction total'))),
    transactions_today: Type.String({ description: 'transactions in the consensus blocks of the last 24 hours' }),
    tvl: Nullable(Type.String(notIndexed('prices'))),
  },
  { additionalProperties: false },
);
export type StatsObject = Static<typeof StatsObject>;

export const BackendVersion = Type.Object({ backend_version: Type.String({ description: 'this server: package name and version' }) }, { additionalProperties: false });

export const IndexingStatus = Type.Object(
  {
    finished_indexing: Type.Boolean({ description: 'the indexer has reached the head it last saw' }),
    finished_indexing_blocks: Type.Boolean({ description: 'same as finished_indexing: transfers and traces are indexed with their blocks' }),
    indexed_blocks_ratio: Type.String({ description: 'indexed blocks / blocks up to the head it last saw, two decimals, e.g. "0.97"' }),
    indexed_internal_transactions_ratio: Nullable(Type.String({ description: 'null: internal transactions are read with their blocks, not counted apart' })),
  },
  { additionalProperties: false },
);
export type IndexingStatus = Static<typeof IndexingStatus>;
