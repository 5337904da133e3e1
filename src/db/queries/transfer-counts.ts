/**
 * Tokens' transfer counts (migration 032): added by the batch's token upsert
 * (indexer/token-rows.ts); here, the counts of the blocks still inside the reorg window, kept so a
 * rollback subtracts exactly what the orphaned blocks added, as balance_changes keeps their deltas.
 */
import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { hexArray } from '../hex.js';

/** A token's transfers in a batch, and the last block they are in. */
export interface TokenTransfers {
  transfers: number;
  lastBlock: bigint;
}

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
 * the rollback is `exact`, their tokens' counts. Otherwise blocks were orphaned whose counts were
 * not recorded, so the count of every token with a transfer above the ancestor becomes unknown
 * (its last_transfer_block says so, also for transfers that moved no balance): a count is never a
 * guess.
 */
export async function undoTransferCountsAbove(tx: Queryable, chainId: number, ancestor: bigint, exact: boolean): Promise<void> {
  const args = [chainId, ancestor.toString()];
  const gone = 'DELETE FROM transfer_counts WHERE chain_id = $1 AND block_number > $2';
  if (!exact) {
    await tx.query(gone, args);
    await tx.query('UPDATE tokens SET transfers_count = NULL WHERE chain_id = $1 AND last_transfer_block > $2 AND transfers_count IS NOT NULL', args);
    return;
  }
  await tx.query(
    `WITH gone AS (${gone} RETURNING token, transfers)
     UPDATE tokens t SET transfers_count = t.transfers_count - u.transfers
     FROM (SELECT token, sum(transfers) AS transfers FROM gone GROUP BY token) u
     WHERE t.chain_id = $1 AND t.address = u.token`,
    args,
  );
}
