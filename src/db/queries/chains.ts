import { backfillingSql } from '../chain-partitions.js';
import type { Queryable } from '../client.js';
import type { BlobSchedule } from '../../config/blob-schedule.js';

export interface ChainStatus {
  chainId: number;
  elasticity: number;
  /** the configured blob schedule; null: the known one for the chain id (config/blob-schedule.ts) */
  blobSchedule: BlobSchedule | null;
  indexedBlock: bigint | null;
  headBlock: bigint | null;
  /** when the indexer last reached its node (this process's clock); null if it never did */
  polledAt: number | null;
  /** for a chain with nothing indexed whose node was never reached: when it was added (this process's clock); else null */
  addedAt: number | null;
  /** since when its steps have been failing, and what failed; null while they succeed */
  failingSince: Date | null;
  failure: string | null;
  /** indexed for the first time and its page indexes not built yet (db/chain-partitions.ts) */
  backfilling: boolean;
  /** `blockProducer` as the chain's blocks were indexed: `miner`, `clique`, `mixed` (changed since); null: before it was kept (miner) */
  blockProducer?: string | null;
  /** an Arbitrum chain's parent-chain follower (chains/arbitrum/): its tip, the parent's head, its last poll */
  parent?: { indexedBlock: bigint | null; headBlock: bigint | null; polledAt: number | null };
}

/** Registers a chain (or updates its settings) so the API serves it. */
export async function ensureChain(db: Queryable, chainId: number, elasticity = 2, blobSchedule: BlobSchedule | null = null): Promise<void> {
  await db.query(
    `INSERT INTO chains (chain_id, elasticity, blob_schedule) VALUES ($1, $2, $3::jsonb)
     ON CONFLICT (chain_id) DO UPDATE SET elasticity = excluded.elasticity, blob_schedule = excluded.blob_schedule`,
    [chainId, elasticity, blobSchedule === null ? null : JSON.stringify(blobSchedule)],
  );
}

export async function listChains(db: Queryable): Promise<ChainStatus[]> {
  const rows = await db.query<{
    chain_id: string;
    elasticity: number;
    blob_schedule: BlobSchedule | string | null;
    indexed_block: string | null;
    head_block: string | null;
    polled_ms_ago: string | null;
    waiting_ms: string | null;
    failing_since: string | null;
    failure: string | null;
    parent_indexed: string | null;
    parent_head: string | null;
    parent_polled_ms_ago: string | null;
    followed: boolean | null;
    backfilling: boolean;
    block_producer: string | null;
  }>(
    // the heartbeat's age by the database's clock, which every process shares
    `SELECT c.chain_id::text, c.elasticity, c.blob_schedule, c.indexed_block::text, c.head_block::text,
            (extract(epoch FROM now() - c.polled_at) * 1000)::bigint::text AS polled_ms_ago,
            CASE WHEN c.polled_at IS NULL AND c.indexed_block IS NULL THEN (extract(epoch FROM now() - c.updated_at) * 1000)::bigint::text END AS waiting_ms,
            to_char(c.failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS failing_since, c.failure,
            p.chain_id IS NOT NULL AS followed, p.indexed_block::text AS parent_indexed, p.head_block::text AS parent_head,
            (extract(epoch FROM now() - p.polled_at) * 1000)::bigint::text AS parent_polled_ms_ago,
            ${backfillingSql('c.chain_id')} AS backfilling, c.block_producer
     FROM chains c LEFT JOIN arbitrum_parent p ON p.chain_id = c.chain_id ORDER BY c.chain_id`,
  );
  const now = Date.now();
  return rows.map((r) => ({
    chainId: Number(r.chain_id),
    elasticity: r.elasticity,
    blobSchedule: typeof r.blob_schedule === 'string' ? (JSON.parse(r.blob_schedule) as BlobSchedule) : r.blob_schedule,
    indexedBlock: r.indexed_block === null ? null : BigInt(r.indexed_block),
    headBlock: r.head_block === null ? null : BigInt(r.head_block),
    polledAt: r.polled_ms_ago === null ? null : now - Number(r.polled_ms_ago),
    addedAt: r.waiting_ms === null ? null : now - Number(r.waiting_ms),
    failingSince: r.failing_since === null ? null : new Date(r.failing_since),
    failure: r.failure,
    backfilling: r.backfilling,
    blockProducer: r.block_producer,
    ...(r.followed
      ? {
          parent: {
            indexedBlock: r.parent_indexed === null ? null : BigInt(r.parent_indexed),
            headBlock: r.parent_head === null ? null : BigInt(r.parent_head),
            polledAt: r.parent_polled_ms_ago === null ? null : now - Number(r.parent_polled_ms_ago),
          },
        }
      : {}),
  }));
}
