import type { Database, Queryable } from '../db/client.js';
import type { Hex, TokenType } from '../db/rows.js';
import { upsertBlocks } from '../db/queries/write-blocks.js';
import { upsertUncles } from '../db/queries/write-uncles.js';
import { applyBalanceDeltas, pruneBalanceChanges, recordBalanceChanges, type BalanceKey } from '../db/queries/write-balances.js';
import { addUncheckedAddresses } from '../db/queries/write-addresses.js';
import { changesFrom, setChangesFrom, setIndexedBlock } from '../db/queries/progress.js';
import type { IndexBatch } from './transform.js';

/** Adds tokens not yet known, with the type their first events implied; never retypes. */
async function insertNewTokens(db: Queryable, chainId: number, tokens: Map<string, TokenType>) {
  if (tokens.size === 0) return;
  await db.query(
    `INSERT INTO tokens (chain_id, address, type)
     SELECT $1, decode(u.address, 'hex'), u.type FROM unnest($2::text[], $3::text[]) AS u(address, type)
     ON CONFLICT (chain_id, address) DO NOTHING`,
    [chainId, [...tokens.keys()].map((a) => a.slice(2)), [...tokens.values()]],
  );
}

/**
 * Writes one batch and the progress marker in one transaction: after a crash at any moment
 * either all of the batch is there and the marker says so, or none of it is.
 * `addresses`: those of the batch's addresses that may not be in `addresses` yet.
 * Returns the balances that went negative, for reconciliation.
 */
export async function writeBatch(
  db: Database,
  chainId: number,
  batch: IndexBatch,
  addresses: readonly Hex[] = [...batch.addresses],
): Promise<BalanceKey[]> {
  return db.transaction(async (tx) => {
    await insertNewTokens(tx, chainId, batch.tokens);
    await upsertBlocks(tx, batch.blocks);
    await upsertUncles(tx, batch.uncles);
    const negative = await applyBalanceDeltas(tx, chainId, batch.to, batch.deltas);
    await recordBalanceChanges(tx, chainId, batch.blockDeltas);
    await addUncheckedAddresses(tx, chainId, addresses);
    await updateChangesFrom(tx, chainId, batch);
    await setIndexedBlock(tx, chainId, batch.to);
    return negative;
  });
}

/**
 * Recorded blocks form a suffix of each batch (those inside the reorg window). Rollbacks are
 * exact down to `changes_from`, the start of the unbroken run of recorded blocks.
 */
async function updateChangesFrom(tx: Queryable, chainId: number, batch: IndexBatch) {
  if (batch.recordedFrom === batch.from) {
    if ((await changesFrom(tx, chainId)) === null) await setChangesFrom(tx, chainId, batch.from);
  } else {
    await setChangesFrom(tx, chainId, batch.recordedFrom ?? batch.to + 1n);
  }
}

/**
 * Drops the recorded changes of blocks below `below` and moves `changes_from` up with them,
 * in one transaction: a rollback past the pruned blocks must not count as exact, since their
 * changes are gone (it resets the touched balances from balanceOf instead).
 */
export async function pruneRecordedChanges(db: Database, chainId: number, below: bigint): Promise<void> {
  await db.transaction(async (tx) => {
    await pruneBalanceChanges(tx, chainId, below);
    const from = await changesFrom(tx, chainId);
    if (from !== null && from < below) await setChangesFrom(tx, chainId, below);
  });
}
