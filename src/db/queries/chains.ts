import type { Queryable } from '../client.js';

export interface ChainStatus {
  chainId: number;
  elasticity: number;
  indexedBlock: bigint | null;
  headBlock: bigint | null;
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
  const rows = await db.query<{ chain_id: string | number; elasticity: number; indexed_block: string | null; head_block: string | null }>(
    'SELECT chain_id::text, elasticity, indexed_block::text, head_block::text FROM chains ORDER BY chain_id',
  );
  return rows.map((r) => ({
    chainId: Number(r.chain_id),
    elasticity: r.elasticity,
    indexedBlock: r.indexed_block === null ? null : BigInt(r.indexed_block),
    headBlock: r.head_block === null ? null : BigInt(r.head_block),
  }));
}
