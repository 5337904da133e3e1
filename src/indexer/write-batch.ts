import type { Database, Queryable } from '../db/client.js';
import type { BalanceRow, Hex, TokenType } from '../db/rows.js';
import { upsertBlocks } from '../db/queries/write-blocks.js';
import { upsertUncles } from '../db/queries/write-uncles.js';
import { applyBalanceDeltas, applyBlockChanges, pruneBalanceChanges, recordBalanceChanges } from '../db/queries/write-balances.js';
import { addUncheckedAddresses } from '../db/queries/write-addresses.js';
import { changesFrom, recordBatchProgress, setChangesFrom, type BatchProgress } from '../db/queries/progress.js';
import { setSweepPosition, type SweepPosition } from '../db/queries/rebasing-sweep.js';
import { settleBalances } from './reconcile.js';
import type { IndexBatch } from './transform.js';
import { refreshPrimaryNames, writeEnsEvents } from '../db/queries/ens.js';

/** Adds tokens not yet known, with the type their first events implied; never retypes. */
async function insertNewTokens(db: Queryable, chainId: number, tokens: Map<Hex, TokenType>, firstBlock: Map<Hex, bigint>) {
  if (tokens.size === 0) return;
  const addresses = [...tokens.keys()];
  // first_block is only filled where unknown: a token re-seen keeps its first block (a rollback
  // clears the first blocks of the orphaned branch, write-history.ts)
  await db.query(
    `INSERT INTO tokens AS t (chain_id, address, type, first_block)
     SELECT $1, decode(u.address, 'hex'), u.type, u.first_block FROM unnest($2::text[], $3::text[], $4::bigint[]) AS u(address, type, first_block)
     ON CONFLICT (chain_id, address) DO UPDATE SET first_block = excluded.first_block WHERE t.first_block IS NULL`,
    [chainId, addresses.map((a) => a.slice(2)), [...tokens.values()], addresses.map((a) => (firstBlock.get(a) ?? 0n).toString())],
  );
}

export interface BatchExtras {
  /** those of the batch's addresses that may not be in `addresses` yet (all by default) */
  addresses?: readonly Hex[];
  /** balances as the token contracts report them at the batch's last block: set after the deltas */
  reconciled?: readonly BalanceRow[];
  /** the rebasing sweep's position after this batch (undefined: no sweep) */
  sweep?: SweepPosition | null;
}

/**
 * Writes one batch and the progress marker in one transaction: after a crash at any moment
 * either all of the batch is there and the marker says so, or none of it is. Balances the batch
 * drives negative must be among `extras.reconciled`; otherwise nothing is written and
 * UnreconciledBalancesError names them (reconcile.ts withBalanceRepair fetches them and writes
 * again), so no negative balance ever commits.
 */
export async function writeBatch(db: Database, chainId: number, batch: IndexBatch, extras: BatchExtras = {}): Promise<void> {
  await db.transaction(async (tx) => {
    await insertNewTokens(tx, chainId, batch.tokens, batch.tokenFirstBlock);
    await upsertBlocks(tx, batch.blocks);
    await upsertUncles(tx, batch.uncles);
    // one statement for the balances and their history, before the reconciled values are set:
    // the per-block values derive from the event deltas
    const negative =
      batch.history === null
        ? await applyBalanceDeltas(tx, chainId, batch.to, batch.deltas)
        : await applyBlockChanges(tx, chainId, batch.history);
    await settleBalances(tx, chainId, negative, extras.reconciled ?? []);
    await recordBalanceChanges(tx, chainId, batch.blockDeltas);
    await addUncheckedAddresses(tx, chainId, extras.addresses ?? [...batch.addresses]);
    if (batch.ens) {
      await writeEnsEvents(tx, chainId, batch.ens.events, batch.ens.reverse);
      await refreshPrimaryNames(tx, chainId, batch.ens.registry, [...new Set(batch.ens.events.map((e) => e.node))]);
    }
    if (extras.sweep !== undefined) await setSweepPosition(tx, chainId, extras.sweep);
    await recordBatchProgress(tx, chainId, { indexed: batch.to, changesFrom: changesFromAfter(batch), historyFrom: batch.history === null ? null : batch.from });
  });
}

/**
 * Recorded blocks form a suffix of each batch (those inside the reorg window). Rollbacks are
 * exact down to `changes_from`, the start of the unbroken run of recorded blocks: a batch
 * recorded whole continues the run (or starts it), any other starts it where its recorded
 * blocks do, or after the batch if it has none.
 */
function changesFromAfter(batch: IndexBatch): BatchProgress['changesFrom'] {
  return batch.recordedFrom === batch.from ? { orKeep: batch.from } : { set: batch.recordedFrom ?? batch.to + 1n };
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
