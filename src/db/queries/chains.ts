import type { Queryable } from '../client.js';

export interface ChainStatus {
  chainId: number;
  elasticity: number;
  indexedBlock: bigint | null;
  headBlock: bigint | null;
  /** when the indexer last reached its node (this process's clock); null if it never did */
  polledAt: number | null;
  /** since when its steps have been failing, and what failed; null while they succeed */
  failingSince: Date | null;
  failure: string | null;
}

/** Registers a chain (or updates its settings) so the API serves it. */
export async function ensureChain(db: Queryable, chainId: number, elasticity = 2): Promise<void> {
  await db.query(
    `INSERT INTO chains (chain_id, elasticity) VALUES ($1, $2)
     ON CONFLICT (chain_id) DO UPDATE SET elasticity = excluded.elasticity`,
    [chainId, elasticity],
  );
}

export async function listChains(db: Queryable): Promise<ChainStatus[]> {
  const rows = await db.query<{
    chain_id: string;
    elasticity: number;
    indexed_block: string | null;
    head_block: string | null;
    polled_ms_ago: string | null;
    failing_since: string | null;
    failure: string | null;
  }>(
    // the heartbeat's age by the database's clock, which every process shares
    `SELECT chain_id::text, elasticity, indexed_block::text, head_block::text,
            (extract(epoch FROM now() - polled_at) * 1000)::bigint::text AS polled_ms_ago,
            to_char(failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS failing_since, failure
     FROM chains ORDER BY chain_id`,
  );
  const now = Date.now();
  return rows.map((r) => ({
    chainId: Number(r.chain_id),
    elasticity: r.elasticity,
    indexedBlock: r.indexed_block === null ? null : BigInt(r.indexed_block),
    headBlock: r.head_block === null ? null : BigInt(r.head_block),
    polledAt: r.polled_ms_ago === null ? null : now - Number(r.polled_ms_ago),
    failingSince: r.failing_since === null ? null : new Date(r.failing_since),
    failure: r.failure,
  }));
}
