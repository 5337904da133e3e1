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
  /** since when its steps have been failing, and what failed; null while they succeed */
  failingSince: Date | null;
  failure: string | null;
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
    failing_since: string | null;
    failure: string | null;
  }>(
    // the heartbeat's age by the database's clock, which every process shares
    `SELECT chain_id::text, elasticity, blob_schedule, indexed_block::text, head_block::text,
            (extract(epoch FROM now() - polled_at) * 1000)::bigint::text AS polled_ms_ago,
            to_char(failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS failing_since, failure
     FROM chains ORDER BY chain_id`,
  );
  const now = Date.now();
  return rows.map((r) => ({
    chainId: Number(r.chain_id),
    elasticity: r.elasticity,
    blobSchedule: typeof r.blob_schedule === 'string' ? (JSON.parse(r.blob_schedule) as BlobSchedule) : r.blob_schedule,
    indexedBlock: r.indexed_block === null ? null : BigInt(r.indexed_block),
    headBlock: r.head_block === null ? null : BigInt(r.head_block),
    polledAt: r.polled_ms_ago === null ? null : now - Number(r.polled_ms_ago),
    failingSince: r.failing_since === null ? null : new Date(r.failing_since),
    failure: r.failure,
  }));
}
