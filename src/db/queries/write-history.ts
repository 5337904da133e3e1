import type { Queryable } from '../client.js';
import type { BalanceRow, Hex } from '../rows.js';
import { fromHexText, hexArray, tokenIdText } from '../hex.js';
import { heldSql } from './holder-rows.js';

/**
 * The history's write side besides the event path (migration 023: a past value is an interval
 * [from_block, to_block) in balance_intervals, the current one the live row with the block of
 * its last change). Changes that events make close their intervals in the balance write
 * itself: write-balances.ts applyBlockChanges.
 */

/**
 * The SET of an upsert that writes absolute values (what balanceOf reports): a value that did
 * not change keeps the block it was set at, so the holders at earlier blocks still see it
 * (unless that block is above the new one: an orphaned branch's).
 */
export const SET_ABSOLUTE = `value = excluded.value,
  block_number = CASE WHEN b.value = excluded.value AND b.block_number <= excluded.block_number THEN b.block_number
                      ELSE excluded.block_number END`;

/**
 * Before absolute values are written at their blocks: each live value they replace becomes the
 * interval from its block to theirs. (A live row set above the new block came from an orphaned
 * branch: it closes nothing.)
 */
export async function closeIntervals(db: Queryable, chainId: number, rows: readonly BalanceRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO balance_intervals (chain_id, token, holder, token_id, value, from_block, to_block)
     SELECT $1, b.token, b.holder, b.token_id, b.value, b.block_number, u.block_number
     FROM unnest($2::text[], $3::text[], $4::numeric[], $5::bigint[], $6::numeric[]) AS u(token, holder, token_id, block_number, value)
     JOIN token_balances b ON b.chain_id = $1 AND b.token = decode(u.token, 'hex') AND b.holder = decode(u.holder, 'hex')
                          AND b.token_id IS NOT DISTINCT FROM u.token_id
     WHERE ${heldSql('b')} AND b.value <> u.value AND b.block_number < u.block_number`,
    [
      chainId,
      hexArray(rows.map((r) => r.token)),
      hexArray(rows.map((r) => r.holder)),
      rows.map((r) => tokenIdText(r.tokenId)),
      rows.map((r) => r.blockNumber.toString()),
      rows.map((r) => r.value.toString()),
    ],
  );
}

/**
 * A rollback's part, after the recorded deltas are undone: intervals that began on the
 * orphaned branch go; one that an orphaned change closed is the value at the ancestor again,
 * so it goes back into its live row with its block. (The undo gives the same value; a reorg
 * deeper than the recorded window has no undo, and this is what its balanceOf reset is
 * compared with.) Returns the tokens whose live values this changed: their holder counts are
 * the caller's to recount.
 */
export async function reopenIntervalsAbove(db: Queryable, chainId: number, ancestor: bigint): Promise<Hex[]> {
  const rows = await db.query<{ token: string }>(
    `WITH gone AS (
       DELETE FROM balance_intervals WHERE chain_id = $1 AND to_block > $2
       RETURNING token, holder, token_id, value, from_block
     ), reopened AS (
       UPDATE token_balances b SET value = g.value, block_number = g.from_block
       FROM gone g
       WHERE g.from_block <= $2 AND b.chain_id = $1 AND b.token = g.token AND b.holder = g.holder
         AND b.token_id IS NOT DISTINCT FROM g.token_id
       RETURNING b.token, b.holder, b.token_id
     )
     -- the statement's snapshot still has the values before the update
     SELECT DISTINCT encode(r.token, 'hex') AS token FROM reopened r
     JOIN gone g ON g.token = r.token AND g.holder = r.holder AND g.token_id IS NOT DISTINCT FROM r.token_id
     JOIN token_balances b ON b.chain_id = $1 AND b.token = r.token AND b.holder = r.holder AND b.token_id IS NOT DISTINCT FROM r.token_id
     WHERE g.from_block <= $2 AND b.value <> g.value`,
    [chainId, ancestor.toString()],
  );
  // a token first seen on the orphaned branch is first seen again where the new branch has it
  await db.query('UPDATE tokens SET first_block = NULL WHERE chain_id = $1 AND first_block > $2', [chainId, ancestor.toString()]);
  return rows.map((r) => fromHexText(r.token));
}

/** Where history starts for this chain (null before the first batch). */
export async function historyFrom(db: Queryable, chainId: number): Promise<bigint | null> {
  const rows = await db.query<{ history_from: string | null }>('SELECT history_from::text AS history_from FROM chains WHERE chain_id = $1', [chainId]);
  const v = rows[0]?.history_from;
  return v === null || v === undefined ? null : BigInt(v);
}

/**
 * The operator's horizon (--history-from-block): intervals that ended at or below it answer no
 * block at or above it. The counts kept for blocks below it go too. One transaction;
 * history_from moves up with it.
 */
export async function pruneHistoryBelow(db: Queryable, chainId: number, horizon: bigint): Promise<void> {
  const h = horizon.toString();
  await db.query('DELETE FROM balance_intervals WHERE chain_id = $1 AND to_block <= $2', [chainId, h]);
  await db.query('DELETE FROM holder_snapshots WHERE chain_id = $1 AND block_number < $2', [chainId, h]);
  await db.query('UPDATE chains SET history_from = greatest(coalesce(history_from, $2), $2) WHERE chain_id = $1', [chainId, h]);
}
