import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { fromHexText } from '../hex.js';

/** The batch a token part last committed (migration 028): its last block and that block's hash. */
export interface PartMark {
  block: bigint;
  hash: Hex;
}

/** A part's mark, with the part it is of. */
export type PartMarkOf = PartMark & { part: number };

type MarkRow = { part: number; block: string; hash: string };

const toMark = (r: MarkRow): PartMarkOf => ({ part: Number(r.part), block: BigInt(r.block), hash: fromHexText(r.hash) });

/**
 * Inside a part's transaction, before it writes: the chain's indexed block (`tip`, null: none
 * yet), and the marks of every part whose last committed batch ends at `from` or above, this
 * part's among them, with this part's row locked until the transaction ends, so a part written
 * twice at once (a retry while the first attempt is still in flight) waits and then sees the
 * first one's mark. The other parts' rows are read, not locked: only their own part's commit
 * changes them.
 */
export async function lockPartMarks(tx: Queryable, chainId: number, part: number, from: bigint): Promise<{ tip: bigint | null; marks: PartMarkOf[] }> {
  // one round trip: the no-op update of a row already there locks it and returns it as it is
  const rows = await tx.query<{ tip: string | null } & { [K in keyof MarkRow]: MarkRow[K] | null }>(
    `WITH own AS (
       INSERT INTO token_parts AS p (chain_id, part, block_number, block_hash) VALUES ($1, $2, -1, '\\x')
       ON CONFLICT (chain_id, part) DO UPDATE SET block_number = p.block_number
       RETURNING p.part, p.block_number, p.block_hash
     ), marks AS (
       SELECT part, block_number::text AS block, encode(block_hash, 'hex') AS hash FROM own WHERE block_number >= $3
       UNION ALL
       SELECT part, block_number::text, encode(block_hash, 'hex') FROM token_parts WHERE chain_id = $1 AND part <> $2 AND block_number >= $3
     )
     SELECT c.indexed_block::text AS tip, m.part, m.block, m.hash FROM chains c LEFT JOIN marks m ON true WHERE c.chain_id = $1`,
    [chainId, part, from.toString()],
  );
  const tip = rows[0]?.tip ?? null;
  return { tip: tip === null ? null : BigInt(tip), marks: rows.flatMap((r) => (r.part === null ? [] : [toMark(r as MarkRow)])) };
}

export async function setPartMark(tx: Queryable, chainId: number, part: number, mark: PartMark): Promise<void> {
  await tx.query('UPDATE token_parts SET block_number = $3, block_hash = decode($4, \'hex\') WHERE chain_id = $1 AND part = $2', [
    chainId,
    part,
    mark.block.toString(),
    mark.hash.slice(2),
  ]);
}

/**
 * The batch some parts committed above the chain's indexed block (a crash between the parts'
 * commits and the batch's own): one batch at most, since the next batch's parts start only
 * after that commit. Null when no part is ahead.
 */
export async function partsAhead(db: Queryable, chainId: number): Promise<PartMark | null> {
  const rows = await db.query<MarkRow>(
    `SELECT p.part, p.block_number::text AS block, encode(p.block_hash, 'hex') AS hash
     FROM token_parts p JOIN chains c ON c.chain_id = p.chain_id
     WHERE p.chain_id = $1 AND p.block_number > coalesce(c.indexed_block, -1)
     ORDER BY p.block_number DESC LIMIT 1`,
    [chainId],
  );
  return rows[0] ? toMark(rows[0]) : null;
}

/** The parts whose last committed batch ends at `from` or above, with that batch's last block and its hash. */
export async function partMarksFrom(db: Queryable, chainId: number, from: bigint): Promise<PartMarkOf[]> {
  const rows = await db.query<MarkRow>(
    `SELECT part, block_number::text AS block, encode(block_hash, 'hex') AS hash
     FROM token_parts WHERE chain_id = $1 AND block_number >= $2 ORDER BY part`,
    [chainId, from.toString()],
  );
  return rows.map(toMark);
}

/** In a rollback's transaction: marks above the block rolled back to name batches that are gone. */
export async function dropPartMarksAbove(tx: Queryable, chainId: number, block: bigint): Promise<void> {
  await tx.query('DELETE FROM token_parts WHERE chain_id = $1 AND block_number > $2', [chainId, block.toString()]);
}
