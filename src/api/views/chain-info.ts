import type { ChainStats } from '../../db/queries/chain-stats.js';
import type { ChainStatus } from '../../db/queries/chains.js';
import type { IndexingStatus, StatsObject } from '../schemas/chain-info.js';

/** Blocks from the first we hold up to `last`, both included; 0 before the first batch. */
function blocksUpTo(first: bigint | null, last: bigint | null): bigint {
  return first === null || last === null || last < first ? 0n : last - first + 1n;
}

export function statsView(chain: ChainStatus, s: ChainStats): StatsObject {
  return {
    average_block_time: s.averageBlockSeconds === null ? null : Math.round(s.averageBlockSeconds * 1000),
    coin_image: null,
    coin_price: null,
    coin_price_change_percentage: null,
    gas_price_updated_at: null,
    gas_prices: null,
    gas_prices_update_in: null,
    gas_used_today: s.gasUsedToday.toString(),
    market_cap: null,
    network_utilization_percentage: s.utilizationPercent,
    secondary_coin_image: null,
    secondary_coin_price: null,
    static_gas_price: null,
    total_addresses: null,
    // consensus blocks are written in order from the first, so the count is a difference
    total_blocks: blocksUpTo(s.firstBlock, chain.indexedBlock).toString(),
    total_gas_used: null,
    total_transactions: null,
    transactions_today: s.transactionsToday.toString(),
    tvl: null,
  };
}

/** `a / b` floored to two decimals, as a string ("0.97", "1.00"). */
function ratio(a: bigint, b: bigint): string {
  if (b <= 0n) return '0.00';
  const hundredths = a >= b ? 100n : (a * 100n) / b;
  return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}`;
}

export function indexingStatusView(chain: ChainStatus, firstBlock: bigint | null): IndexingStatus {
  const done = chain.indexedBlock !== null && chain.headBlock !== null && chain.indexedBlock >= chain.headBlock;
  return {
    finished_indexing: done,
    finished_indexing_blocks: done,
    indexed_blocks_ratio: ratio(blocksUpTo(firstBlock, chain.indexedBlock), blocksUpTo(firstBlock, chain.headBlock)),
    indexed_internal_transactions_ratio: null,
  };
}
