import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { fromHexText, hexArray } from '../hex.js';
import type { UncleHeader } from '../../evm/uncle-rewards.js';

/** The stored headers of these uncles (number and miner), by hash: primary-key probes. */
export async function uncleHeaders(db: Queryable, chainId: number, hashes: readonly Hex[]): Promise<UncleHeader[]> {
  if (hashes.length === 0) return [];
  const rows = await db.query<{ hash: string; number: string; miner: string }>(
    `SELECT encode(b.hash, 'hex') AS hash, b.number::text AS number, encode(b.miner, 'hex') AS miner
     FROM blocks b WHERE b.chain_id = $1 AND b.hash = ANY(SELECT decode(x, 'hex') FROM unnest($2::text[]) x)`,
    [chainId, hexArray(hashes)],
  );
  return rows.map((r) => ({ hash: fromHexText(r.hash), number: BigInt(r.number), miner: fromHexText(r.miner) }));
}
