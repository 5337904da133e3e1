import type { Database, Queryable } from '../db/client.js';
import type { BalanceRow, Hex } from '../db/rows.js';
import { upsertBlocks } from '../db/queries/write-blocks.js';
import { upsertUncles } from '../db/queries/write-uncles.js';
import { pruneBalanceChanges, recordBalanceChanges } from '../db/queries/write-balances.js';
import { addUncheckedAddresses } from '../db/queries/write-addresses.js';
import { changesFrom, recordBatchProgress, setChangesFrom, type BatchProgress, type Continues } from '../db/queries/progress.js';
import { setSweepPosition, type SweepPosition } from '../db/queries/rebasing-sweep.js';
import { writeTokenRows } from './token-rows.js';
import type { IndexBatch } from './transform.js';
import { refuseIfPartsAhead, writeTokenParts } from './write-parts.js';
import { refreshPrimaryNames, writeEnsEvents } from '../db/queries/ens.js';
import { pruneTransferCounts, recordTransferCounts } from '../db/queries/transfer-counts.js';

export interface BatchExtras {
  /** those of the batch's addresses that may not be in `addresses` yet (all by default) */
  addresses?: readonly Hex[];
  /** balances as the token contracts report them at the batch's last block: set after the deltas */
  reconciled?: readonly BalanceRow[];
  /** the rebasing sweep's position after this batch (undefined: no sweep) */
  sweep?: SweepPosition | null;
  /**
   * Write the tokens' rows as parts, each in a transaction of its own, before the rest of the
   * batch (./write-parts.ts): PostgreSQL while backfilling, and the batch a crash left some
   * parts ahead in.
   */
  inParts?: boolean;
  /**
   * The indexed block the batch continues: every transaction of the batch refuses to commit on
   * any other (TipMovedError), so that commits a failover took are never written over.
   * Undefined: not checked (tests writing batches by hand).
   */
  continues?: Continues;
}

/** Everything of a batch but its tokens' rows, with the progress marker, which says the batch is in. */
async function writeChainRows(tx: Queryable, chainId: number, batch: IndexBatch, extras: BatchExtras): Promise<void> {
  await upsertBlocks(tx, batch.blocks);
  await upsertUncles(tx, batch.uncles);
  await recordBalanceChanges(tx, chainId, batch.blockDeltas);
  await recordTransferCounts(tx, chainId, batch.blockTransfers);
  await addUncheckedAddresses(tx, chainId, extras.addresses ?? [...batch.addresses]);
  if (batch.ens) {
    await writeEnsEvents(tx, chainId, batch.ens.events, batch.ens.reverse);
    await refreshPrimaryNames(tx, chainId, batch.ens.registry, [...new Set(batch.ens.events.map((e) => e.node))]);
  }
  if (extras.sweep !== undefined) await setSweepPosition(tx, chainId, extras.sweep);
  await recordBatchProgress(tx, chainId, {
    indexed: batch.to,
    changesFrom: changesFromAfter(batch),
    historyFrom: batch.history === null ? null : batch.from,
    continues: extras.continues,
  });
}

/**
 * Writes one batch and the progress marker in one transaction: after a crash at any moment
 * either all of the batch is there and the marker says so, or none of it is. With `inParts`,
 * the tokens' rows commit first, part by part, each part marking the batch as its own; the
 * marker then commits with the rest, and a crash in between leaves parts that the next start
 * skips when it writes the batch again (./write-parts.ts). Balances the batch drives negative
 * must be among `extras.reconciled`; otherwise the tokens' rows that drove them are not written
 * and UnreconciledBalancesError names them (reconcile.ts withBalanceRepair fetches them and
 * writes again), so no negative balance ever commits.
 */
export async function writeBatch(db: Database, chainId: number, batch: IndexBatch, extras: BatchExtras = {}): Promise<void> {
  const reconciled = extras.reconciled ?? [];
  if (extras.inParts) {
    await writeTokenParts(db, chainId, batch, reconciled, extras.continues);
    await db.transaction((tx) => writeChainRows(tx, chainId, batch, extras));
    return;
  }
  await db.transaction(async (tx) => {
    await refuseIfPartsAhead(tx, chainId, batch);
    await writeTokenRows(tx, chainId, batch.to, { ...batch, reconciled });
    await writeChainRows(tx, chainId, batch, extras);
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
 * Drops the recorded changes (and transfer counts) of blocks below `below` and moves `changes_from` up with them,
 * in one transaction: a rollback past the pruned blocks must not count as exact, since their
 * changes are gone (it resets the touched balances from balanceOf instead).
 */
export async function pruneRecordedChanges(db: Database, chainId: number, below: bigint): Promise<void> {
  await db.transaction(async (tx) => {
    await pruneBalanceChanges(tx, chainId, below);
    await pruneTransferCounts(tx, chainId, below);
    const from = await changesFrom(tx, chainId);
    if (from !== null && from < below) await setChangesFrom(tx, chainId, below);
  });
}
