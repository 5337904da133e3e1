import type { Queryable } from '../client.js';

/**
 * The consensus block closest to a unix time: `before`, the last block at or before it;
 * `after`, the first block at or after it. Where several blocks share that second, the last
 * (before) or first (after) of them. One probe of blocks_consensus_timestamp (migration 018).
 * Exported so tests can EXPLAIN what the API runs.
 */
export function blockByTimeQuery(params: { chainId: number; timestamp: bigint; closest: 'before' | 'after' }) {
  const text =
    params.closest === 'before'
      ? `SELECT b.number::text AS number FROM blocks b
         WHERE b.chain_id = $1 AND b.consensus AND b.timestamp <= $2::bigint
         ORDER BY b.timestamp DESC, b.number DESC LIMIT 1`
      : `SELECT b.number::text AS number FROM blocks b
         WHERE b.chain_id = $1 AND b.consensus AND b.timestamp >= $2::bigint
         ORDER BY b.timestamp ASC, b.number ASC LIMIT 1`;
  return { text, args: [params.chainId, params.timestamp.toString()] };
}

export async function blockByTime(db: Queryable, params: { chainId: number; timestamp: bigint; closest: 'before' | 'after' }): Promise<bigint | null> {
  const { text, args } = blockByTimeQuery(params);
  const rows = await db.query<{ number: string }>(text, args, { prepare: true });
  return rows[0] ? BigInt(rows[0].number) : null;
}
