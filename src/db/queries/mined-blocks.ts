import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { toBytea } from '../hex.js';

export interface MinedBlock {
  number: bigint;
  /** unix seconds */
  timestamp: bigint;
  /** wei paid to the miner for this block (or this uncle) */
  reward: bigint;
}

// The window is cut first and rewards summed for its rows only: OFFSET still walks the skipped
// index entries, but computes nothing for them.

/**
 * Consensus blocks mined by the address: the reward is the sum of the block's reward entries
 * for the miner, uncle rewards aside (those belong to the uncle's own row).
 */
const BLOCKS = (dir: Direction) => /* sql */ `
  SELECT w.number::text AS number, w.timestamp::text AS timestamp,
    coalesce((SELECT sum((r->>'reward')::numeric) FROM jsonb_array_elements(w.rewards) r
              WHERE r->>'address_hash' = $5 AND r->>'type' <> 'uncle'), 0)::text AS reward
  FROM (SELECT b.number, b.timestamp, b.rewards FROM blocks b
        WHERE b.chain_id = $1 AND b.miner = $2 AND b.consensus
        ORDER BY b.number ${dir} LIMIT $3 OFFSET $4) w
  ORDER BY w.number ${dir}`;

/**
 * Uncles mined by the address. An uncle's reward is paid in the consensus block that includes
 * it, at most 7 heights later (the protocol allows 6): its `uncle` entry for this miner. Two
 * uncles of one miner in the same including block share one merged entry, counted for each.
 */
const UNCLES = (dir: Direction) => /* sql */ `
  SELECT w.number::text AS number, w.timestamp::text AS timestamp,
    coalesce((SELECT sum((r->>'reward')::numeric)
              FROM blocks inc CROSS JOIN LATERAL jsonb_array_elements(inc.rewards) r
              WHERE inc.chain_id = $1 AND inc.consensus
                AND inc.number BETWEEN w.number + 1 AND w.number + 7
                AND inc.uncle_hashes @> jsonb_build_array('0x' || encode(w.hash, 'hex'))
                AND r->>'type' = 'uncle' AND r->>'address_hash' = $5), 0)::text AS reward
  FROM (SELECT u.number, u.timestamp, u.hash FROM blocks u
        WHERE u.chain_id = $1 AND u.miner = $2 AND u.is_uncle AND NOT u.consensus
        ORDER BY u.number ${dir} LIMIT $3 OFFSET $4) w
  ORDER BY w.number ${dir}`;

type Direction = 'ASC' | 'DESC';

export interface MinedBlocksParams {
  chainId: number;
  miner: Hex;
  kind: 'blocks' | 'uncles';
  offset: number;
  limit: number;
  /** desc: newest first */
  sort: 'asc' | 'desc';
}

/** The statement, exported so tests can EXPLAIN exactly what the API runs. */
export function minedBlocksQuery(params: MinedBlocksParams) {
  const dir: Direction = params.sort === 'asc' ? 'ASC' : 'DESC';
  return {
    text: params.kind === 'blocks' ? BLOCKS(dir) : UNCLES(dir),
    args: [params.chainId, toBytea(params.miner), params.limit, params.offset, params.miner.toLowerCase()],
  };
}

/** Rows `offset` … `offset + limit` in block order; callers cap offset + limit. */
export async function minedBlocksWindow(db: Queryable, params: MinedBlocksParams): Promise<MinedBlock[]> {
  const { text, args } = minedBlocksQuery(params);
  const rows = await db.query<{ number: string; timestamp: string; reward: string }>(text, args, { prepare: true });
  return rows.map((r) => ({ number: BigInt(r.number), timestamp: BigInt(r.timestamp), reward: BigInt(r.reward) }));
}
