import type { Queryable } from '../client.js';

/** How many of the newest blocks the averages of `/stats` cover. */
export const RECENT_BLOCKS = 100;

export interface ChainStats {
  /** the lowest consensus block we hold (the indexer's start), null before the first batch */
  firstBlock: bigint | null;
  /** mean seconds between the newest RECENT_BLOCKS + 1 consensus blocks; null with fewer than 2 */
  averageBlockSeconds: number | null;
  /** mean gas used / gas limit × 100 over the newest RECENT_BLOCKS consensus blocks */
  utilizationPercent: number | null;
  /** over the consensus blocks of the last 24 hours by the database's clock */
  transactionsToday: bigint;
  gasUsedToday: bigint;
}

/**
 * One statement: the first block is the first entry of blocks_consensus_number, the recent
 * blocks the last entries of it, the day a range of blocks_consensus_timestamp (its rows'
 * transaction counts and gas read from the table: a day of blocks, not the chain).
 */
const STATS = /* sql */ `
  WITH recent AS (
    SELECT number, timestamp, gas_used, gas_limit FROM blocks
    WHERE chain_id = $1 AND consensus ORDER BY number DESC LIMIT $2
  ), today AS (
    SELECT coalesce(sum(transactions_count), 0)::text AS transactions, coalesce(sum(gas_used), 0)::text AS gas
    FROM blocks WHERE chain_id = $1 AND consensus AND timestamp >= extract(epoch FROM now())::bigint - 86400
  )
  SELECT
    (SELECT min(number)::text FROM blocks WHERE chain_id = $1 AND consensus) AS first_block,
    (SELECT count(*)::int FROM recent) AS recent_count,
    (SELECT (max(timestamp) - min(timestamp))::text FROM recent) AS recent_span,
    (SELECT (avg(gas_used / NULLIF(gas_limit, 0)) * 100)::float8 FROM (SELECT * FROM recent ORDER BY number DESC LIMIT $2 - 1) r) AS utilization,
    today.transactions, today.gas
  FROM today`;

export async function chainStats(db: Queryable, chainId: number): Promise<ChainStats> {
  const rows = await db.query<{
    first_block: string | null;
    recent_count: number;
    recent_span: string | null;
    utilization: number | null;
    transactions: string;
    gas: string;
  }>(STATS, [chainId, RECENT_BLOCKS + 1], { prepare: true });
  const r = rows[0]!;
  return {
    firstBlock: r.first_block === null ? null : BigInt(r.first_block),
    averageBlockSeconds: r.recent_count < 2 || r.recent_span === null ? null : Number(r.recent_span) / (r.recent_count - 1),
    utilizationPercent: r.utilization === null ? null : Number(r.utilization),
    transactionsToday: BigInt(r.transactions),
    gasUsedToday: BigInt(r.gas),
  };
}

/** The lowest consensus block we hold: the first entry of blocks_consensus_number. */
export async function firstIndexedBlock(db: Queryable, chainId: number): Promise<bigint | null> {
  const rows = await db.query<{ n: string | null }>('SELECT min(number)::text AS n FROM blocks WHERE chain_id = $1 AND consensus', [chainId], {
    prepare: true,
  });
  return rows[0]?.n == null ? null : BigInt(rows[0].n);
}
