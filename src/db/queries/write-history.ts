import type { Queryable } from '../client.js';
import type { BalanceRow } from '../rows.js';
import { hexArray, tokenIdText, ZERO_ADDRESS_BYTEA } from '../hex.js';

/**
 * Absolute values set from balanceOf (rebasing tokens, repairs, deep reorgs): kept at their
 * block. (The changes that events make are kept by the balance write itself:
 * write-balances.ts applyBlockChanges.)
 */
export async function recordHistoryValues(db: Queryable, chainId: number, rows: readonly BalanceRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO balance_history AS h (chain_id, token, holder, token_id, block_number, value)
     SELECT $1, decode(u.token, 'hex'), decode(u.holder, 'hex'), u.token_id, u.block_number, u.value
     FROM unnest($2::text[], $3::text[], $4::numeric[], $5::bigint[], $6::numeric[]) AS u(token, holder, token_id, block_number, value)
     WHERE decode(u.holder, 'hex') <> ${ZERO_ADDRESS_BYTEA}
     ON CONFLICT ON CONSTRAINT balance_history_key DO UPDATE SET value = excluded.value`,
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

/** A rollback's part: the changes of orphaned blocks go with them. */
export async function deleteHistoryAbove(db: Queryable, chainId: number, ancestor: bigint): Promise<void> {
  await db.query('DELETE FROM balance_history WHERE chain_id = $1 AND block_number > $2', [chainId, ancestor.toString()]);
  // a token first seen on the orphaned branch is first seen again where the new branch has it
  await db.query('UPDATE tokens SET first_block = NULL WHERE chain_id = $1 AND first_block > $2', [chainId, ancestor.toString()]);
}

/** The first batch written starts the history (unless an upgrade or a prune set it already). */
export async function startHistory(db: Queryable, chainId: number, from: bigint): Promise<void> {
  await db.query('UPDATE chains SET history_from = $2 WHERE chain_id = $1 AND history_from IS NULL', [chainId, from.toString()]);
}

/** Where history starts for this chain (null before the first batch). */
export async function historyFrom(db: Queryable, chainId: number): Promise<bigint | null> {
  const rows = await db.query<{ history_from: string | null }>('SELECT history_from::text AS history_from FROM chains WHERE chain_id = $1', [chainId]);
  const v = rows[0]?.history_from;
  return v === null || v === undefined ? null : BigInt(v);
}

/**
 * The operator's horizon (--history-from-block): rows below it are superseded by the latest
 * one below it per balance, which stays as the base the balances at and above the horizon
 * start from. Snapshots below it go too. One transaction; history_from moves up with it.
 */
export async function pruneHistoryBelow(db: Queryable, chainId: number, horizon: bigint): Promise<void> {
  const h = horizon.toString();
  await db.query(
    `DELETE FROM balance_history o
     WHERE o.chain_id = $1 AND o.block_number < $2
       AND EXISTS (SELECT 1 FROM balance_history n
                   WHERE n.chain_id = o.chain_id AND n.token = o.token AND n.holder = o.holder
                     AND n.token_id IS NOT DISTINCT FROM o.token_id AND n.block_number > o.block_number AND n.block_number < $2)`,
    [chainId, h],
  );
  await db.query('DELETE FROM holder_snapshot_rows WHERE chain_id = $1 AND block_number < $2', [chainId, h]);
  await db.query('DELETE FROM holder_snapshots WHERE chain_id = $1 AND block_number < $2', [chainId, h]);
  await db.query('UPDATE chains SET history_from = greatest(coalesce(history_from, $2), $2) WHERE chain_id = $1', [chainId, h]);
}
