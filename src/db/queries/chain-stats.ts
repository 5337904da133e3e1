import type { Queryable } from '../client.js';

/** How many of the newest blocks the averages of `/stats` cover. */
export const RECENT_BLOCKS = 100;

/** The span `/stats` counts as "today": the consensus blocks of the last 24 hours by the database's clock. */
export const DAY_SECONDS = 86_400n;

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

/** The newest consensus block, which names the chain below it (its hash commits to its ancestors). */
export interface Tip {
  number: bigint;
  /** hex, no 0x */
  hash: string;
}

export type RecentStats = Omit<ChainStats, 'transactionsToday' | 'gasUsedToday'> & {
  /** the database's clock, unix seconds, as extract(epoch FROM now())::bigint rounds it */
  now: bigint;
  /** null before the first batch */
  tip: Tip | null;
};

/**
 * One statement, a few index probes: the first block is the first entry of
 * blocks_consensus_number, the recent blocks the last entries of it, the tip the last of them.
 * The day's sums are not here: they are kept per tip by api/day-totals.ts from dayBuckets.
 */
const RECENT = /* sql */ `
  WITH recent AS (
    SELECT number, hash, timestamp, gas_used, gas_limit FROM blocks
    WHERE chain_id = $1 AND consensus ORDER BY number DESC LIMIT $2
  ), tip AS (
    SELECT number, hash FROM recent ORDER BY number DESC LIMIT 1
  )
  SELECT
    (SELECT min(number)::text FROM blocks WHERE chain_id = $1 AND consensus) AS first_block,
    (SELECT count(*)::int FROM recent) AS recent_count,
    (SELECT (max(timestamp) - min(timestamp))::text FROM recent) AS recent_span,
    (SELECT (avg(gas_used / NULLIF(gas_limit, 0)) * 100)::float8 FROM (SELECT * FROM recent ORDER BY number DESC LIMIT $2 - 1) r) AS utilization,
    extract(epoch FROM now())::bigint::text AS now,
    (SELECT number::text FROM tip) AS tip_number,
    (SELECT encode(hash, 'hex') FROM tip) AS tip_hash`;

export async function recentStats(db: Queryable, chainId: number): Promise<RecentStats> {
  const rows = await db.query<{
    first_block: string | null;
    recent_count: number;
    recent_span: string | null;
    utilization: number | null;
    now: string;
    tip_number: string | null;
    tip_hash: string | null;
  }>(RECENT, [chainId, RECENT_BLOCKS + 1], { prepare: true });
  const r = rows[0]!;
  return {
    firstBlock: r.first_block === null ? null : BigInt(r.first_block),
    averageBlockSeconds: r.recent_count < 2 || r.recent_span === null ? null : Number(r.recent_span) / (r.recent_count - 1),
    utilizationPercent: r.utilization === null ? null : Number(r.utilization),
    now: BigInt(r.now),
    tip: r.tip_number === null || r.tip_hash === null ? null : { number: BigInt(r.tip_number), hash: r.tip_hash },
  };
}

/** The consensus blocks of one timestamp: their transactions and gas added up. */
export interface DayBucket {
  timestamp: bigint;
  transactions: bigint;
  gas: bigint;
}

export interface DayBuckets {
  /** `from` is still consensus (always true with from null) and `to` still is: the rows lie between them on one chain */
  fromHolds: boolean;
  toHolds: boolean;
  /** by timestamp, ascending */
  buckets: DayBucket[];
}

/**
 * The consensus blocks above `from` (all with null) up to `to`, of timestamp at or after
 * `since`, added up per timestamp; with whether both ends are still consensus, in the same
 * statement, so the caller knows the rows continue what it holds. A range scan of
 * blocks_consensus_number: after the first build, one indexed block's worth of rows.
 */
const DAY_BUCKETS = /* sql */ `
  SELECT
    ($2::bigint IS NULL OR EXISTS (SELECT 1 FROM blocks WHERE chain_id = $1 AND number = $2::bigint AND hash = decode($3, 'hex') AND consensus)) AS from_holds,
    EXISTS (SELECT 1 FROM blocks WHERE chain_id = $1 AND number = $4::bigint AND hash = decode($5, 'hex') AND consensus) AS to_holds,
    (SELECT coalesce(json_agg(json_build_array(d.timestamp::text, d.transactions, d.gas) ORDER BY d.timestamp), '[]'::json) FROM (
      SELECT timestamp, sum(transactions_count)::text AS transactions, sum(gas_used)::text AS gas FROM blocks
      WHERE chain_id = $1 AND consensus AND number > coalesce($2::bigint, -1) AND number <= $4::bigint AND timestamp >= $6::bigint
      GROUP BY timestamp
    ) d) AS buckets`;

export async function dayBuckets(db: Queryable, chainId: number, from: Tip | null, to: Tip, since: bigint): Promise<DayBuckets> {
  const rows = await db.query<{ from_holds: boolean; to_holds: boolean; buckets: Array<[string, string, string]> | string }>(
    DAY_BUCKETS,
    [chainId, from?.number.toString() ?? null, from?.hash ?? null, to.number.toString(), to.hash, since.toString()],
    { prepare: true },
  );
  const r = rows[0]!;
  const raw = typeof r.buckets === 'string' ? (JSON.parse(r.buckets) as Array<[string, string, string]>) : r.buckets;
  return {
    fromHolds: r.from_holds,
    toHolds: r.to_holds,
    buckets: raw.map(([timestamp, transactions, gas]) => ({ timestamp: BigInt(timestamp), transactions: BigInt(transactions), gas: BigInt(gas) })),
  };
}

