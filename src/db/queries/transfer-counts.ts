/**
 * Tokens' transfer counts (migration 032): added by the batch's token upsert
 * (indexer/token-rows.ts); here, the counts of the blocks still inside the reorg window, kept so a
 * rollback subtracts exactly what the orphaned blocks added, as balance_changes keeps their deltas.
 */
import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { hexArray } from '../hex.js';

/** A token's transfers in one block. */
export interface BlockTransfers {
  blockNumber: bigint;
  token: Hex;
  transfers: number;
}

/** Keeps the window's blocks' transfer counts while they can still be reorganised away. */
export async function recordTransferCounts(db: Queryable, chainId: number, counts: readonly BlockTransfers[]): Promise<void> {
  if (counts.length === 0) return;
  await db.query(
    `INSERT INTO transfer_counts (chain_id, block_number, token, transfers)
     SELECT $1, u.block_number, decode(u.token, 'hex'), u.transfers
     FROM unnest($2::bigint[], $3::text[], $4::int[]) AS u(block_number, token, transfers)`,
    [chainId, counts.map((c) => c.blockNumber.toString()), hexArray(counts.map((c) => c.token)), counts.map((c) => c.transfers)],
  );
}

export async function pruneTransferCounts(db: Queryable, chainId: number, belowBlock: bigint): Promise<void> {
  await db.query('DELETE FROM transfer_counts WHERE chain_id = $1 AND block_number < $2', [chainId, belowBlock.toString()]);
}

/**
 * In a rollback's transaction: the recorded counts above `ancestor` leave the record and, when
 * the rollback is `exact`, their tokens' counts; otherwise (blocks orphaned whose counts were not
 * recorded) the counts of those tokens and of `touched` (the tokens whose balances the orphaned
 * blocks changed) become unknown: a count is never a guess.
 */
export async function undoTransferCountsAbove(tx: Queryable, chainId: number, ancestor: bigint, exact: boolean, touched: readonly string[]): Promise<void> {
  await tx.query(
    `WITH gone AS (
       DELETE FROM transfer_counts WHERE chain_id = $1 AND block_number > $2 RETURNING token, transfers
     ), undone AS (
       SELECT token, sum(transfers) AS transfers FROM gone GROUP BY token
       UNION ALL
       SELECT decode(x, 'hex'), NULL FROM unnest($4::text[]) x WHERE NOT $3
     )
     UPDATE tokens t SET transfers_count = CASE WHEN $3 THEN t.transfers_count - u.transfers END
     FROM (SELECT token, sum(transfers) AS transfers FROM undone GROUP BY token) u
     WHERE t.chain_id = $1 AND t.address = u.token`,
    [chainId, ancestor.toString(), exact, hexArray(touched)],
  );
}
