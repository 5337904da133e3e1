/**
 * The Arbitrum kind's tables (migration 011): what the settlement follower writes, one
 * transaction per step, and undoes after a parent-chain reorg. A step's batches, confirmations,
 * checkpoint and the follower's tip commit together, so a crash resumes exactly after the last
 * committed step.
 */
import type { Queryable } from '../../db/client.js';
import type { Hex } from '../../db/rows.js';
import { fromHexText, hexArray, toBytea } from '../../db/hex.js';
import type { BatchDataContainer } from './batch-data.js';

export interface StoredBatch {
  batchNumber: bigint;
  firstBlock: bigint | null;
  lastBlock: bigint | null;
  dataContainer: BatchDataContainer | null;
  txHash: Hex;
  parentBlock: bigint;
  parentTimestamp: bigint;
}

export interface StoredConfirmation {
  parentBlock: bigint;
  logIndex: number;
  lastBlock: bigint;
  blockHash: Hex;
  sendRoot: Hex;
  txHash: Hex;
  parentTimestamp: bigint;
}

export interface ParentBlockRef {
  number: bigint;
  hash: Hex;
}

export interface ParentState {
  sequencerInbox: Hex;
  outbox: Hex;
  tip: ParentBlockRef | null;
}

export async function parentState(db: Queryable, chainId: number): Promise<ParentState | null> {
  const rows = await db.query<{ inbox: string; outbox: string; indexed_block: string | null; indexed_hash: string | null }>(
    `SELECT encode(sequencer_inbox, 'hex') AS inbox, encode(outbox, 'hex') AS outbox, indexed_block::text,
            encode(indexed_hash, 'hex') AS indexed_hash
     FROM arbitrum_parent WHERE chain_id = $1`,
    [chainId],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    sequencerInbox: fromHexText(r.inbox),
    outbox: fromHexText(r.outbox),
    tip: r.indexed_block === null || r.indexed_hash === null ? null : { number: BigInt(r.indexed_block), hash: fromHexText(r.indexed_hash) },
  };
}

/** The parent chain id this chain was followed on; null before the first start. */
export async function parentChainOf(db: Queryable, chainId: number): Promise<number | null> {
  const rows = await db.query<{ id: string }>('SELECT parent_chain_id::text AS id FROM arbitrum_parent WHERE chain_id = $1', [chainId]);
  return rows[0] ? Number(rows[0].id) : null;
}

/**
 * Records the contracts the rollup names. Other contracts than the stored ones (the config now
 * names another rollup) make everything stored for the chain void: it starts again.
 */
export async function registerContracts(
  db: Queryable,
  chainId: number,
  contracts: { parentChainId: number; sequencerInbox: Hex; outbox: Hex },
): Promise<void> {
  const stored = await parentState(db, chainId);
  if (stored && stored.sequencerInbox === contracts.sequencerInbox && stored.outbox === contracts.outbox) return;
  if (stored) await rollBackTo(db, chainId, null);
  await db.query(
    `INSERT INTO arbitrum_parent (chain_id, parent_chain_id, sequencer_inbox, outbox) VALUES ($1, $2, $3, $4)
     ON CONFLICT (chain_id) DO UPDATE SET parent_chain_id = excluded.parent_chain_id,
       sequencer_inbox = excluded.sequencer_inbox, outbox = excluded.outbox`,
    [chainId, contracts.parentChainId, toBytea(contracts.sequencerInbox), toBytea(contracts.outbox)],
  );
}

/** The parent's head and `safe` block as last seen, and the follower's heartbeat (/health). */
export async function recordParentPoll(db: Queryable, chainId: number, head: bigint, safe: bigint | null): Promise<void> {
  await db.query('UPDATE arbitrum_parent SET head_block = $2, safe_block = COALESCE($3, safe_block), polled_at = now() WHERE chain_id = $1', [
    chainId,
    head.toString(),
    safe === null ? null : safe.toString(),
  ]);
}

/** One step's findings and the parent block it reached, written together. */
export async function writeStep(
  tx: Queryable,
  chainId: number,
  step: { batches: StoredBatch[]; confirmations: StoredConfirmation[]; reached: ParentBlockRef },
): Promise<void> {
  const nullable = (v: bigint | null) => (v === null ? null : v.toString());
  await lockParent(tx, chainId);
  if (step.batches.length > 0) {
    const b = step.batches;
    await tx.query(
      `INSERT INTO arbitrum_batches (chain_id, batch_number, first_block, last_block, data_container, tx_hash, parent_block, parent_timestamp)
       SELECT $1, u.n, u.f, u.l, u.c, decode(u.h, 'hex'), u.pb, u.pt
       FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::text[], $6::text[], $7::bigint[], $8::bigint[]) AS u(n, f, l, c, h, pb, pt)
       ON CONFLICT (chain_id, batch_number) DO UPDATE SET first_block = excluded.first_block, last_block = excluded.last_block,
         range_from_neighbours = false, range_from_node = false, data_container = excluded.data_container, tx_hash = excluded.tx_hash,
         parent_block = excluded.parent_block, parent_timestamp = excluded.parent_timestamp`,
      [
        chainId,
        b.map((x) => x.batchNumber.toString()),
        b.map((x) => nullable(x.firstBlock)),
        b.map((x) => nullable(x.lastBlock)),
        b.map((x) => x.dataContainer),
        hexArray(b.map((x) => x.txHash)),
        b.map((x) => x.parentBlock.toString()),
        b.map((x) => x.parentTimestamp.toString()),
      ],
    );
  }
  if (step.confirmations.length > 0) {
    const c = step.confirmations;
    await tx.query(
      `INSERT INTO arbitrum_confirmations (chain_id, parent_block, log_index, last_block, block_hash, send_root, tx_hash, parent_timestamp)
       SELECT $1, u.pb, u.li, u.l, decode(u.bh, 'hex'), decode(u.sr, 'hex'), decode(u.h, 'hex'), u.pt
       FROM unnest($2::bigint[], $3::int[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::bigint[]) AS u(pb, li, l, bh, sr, h, pt)
       ON CONFLICT (chain_id, parent_block, log_index) DO NOTHING`,
      [
        chainId,
        c.map((x) => x.parentBlock.toString()),
        c.map((x) => x.logIndex),
        c.map((x) => x.lastBlock.toString()),
        hexArray(c.map((x) => x.blockHash)),
        hexArray(c.map((x) => x.sendRoot)),
        hexArray(c.map((x) => x.txHash)),
        c.map((x) => x.parentTimestamp.toString()),
      ],
    );
  }
  await fillRangesFromNeighbours(tx, chainId);
  await mergeSealedIntoParentBatches(tx, chainId);
  await tx.query('INSERT INTO arbitrum_parent_checkpoints (chain_id, number, hash) VALUES ($1, $2, $3) ON CONFLICT (chain_id, number) DO UPDATE SET hash = excluded.hash', [
    chainId,
    step.reached.number.toString(),
    toBytea(step.reached.hash),
  ]);
  await tx.query('UPDATE arbitrum_parent SET indexed_block = $2, indexed_hash = $3 WHERE chain_id = $1', [
    chainId,
    step.reached.number.toString(),
    toBytea(step.reached.hash),
  ]);
}

/**
 * A batch whose transaction holds no counts (legacy, or posted through a contract) seals the
 * blocks between its neighbours' ranges: filled once both neighbours are known.
 */
async function fillRangesFromNeighbours(tx: Queryable, chainId: number): Promise<void> {
  await tx.query(
    `UPDATE arbitrum_batches x SET first_block = prev.last_block + 1, last_block = next.first_block - 1, range_from_neighbours = true
     FROM arbitrum_batches prev, arbitrum_batches next
     WHERE x.chain_id = $1 AND x.first_block IS NULL
       AND prev.chain_id = $1 AND prev.batch_number = x.batch_number - 1 AND prev.last_block IS NOT NULL
       AND next.chain_id = $1 AND next.batch_number = x.batch_number + 1 AND next.first_block IS NOT NULL`,
    [chainId],
  );
}

/** Checkpoints at or below `below`, newest first: the candidates for a common ancestor. */
export async function checkpointsBelow(db: Queryable, chainId: number, below: bigint, limit: number): Promise<ParentBlockRef[]> {
  const rows = await db.query<{ number: string; hash: string }>(
    `SELECT number::text, encode(hash, 'hex') AS hash FROM arbitrum_parent_checkpoints
     WHERE chain_id = $1 AND number <= $2 ORDER BY arbitrum_parent_checkpoints.number DESC LIMIT $3`,
    [chainId, below.toString(), limit],
  );
  return rows.map((r) => ({ number: BigInt(r.number), hash: fromHexText(r.hash) }));
}

/**
 * Undoes everything found after `ancestor` (null: everything), in one transaction when `db` is
 * one: batches and confirmations of later parent blocks, later checkpoints, ranges derived from
 * a neighbour that may be gone; the tip moves back to the ancestor.
 */
export async function rollBackTo(db: Queryable, chainId: number, ancestor: ParentBlockRef | null): Promise<void> {
  const after = ancestor === null ? '-1' : ancestor.number.toString();
  await db.query('DELETE FROM arbitrum_batches WHERE chain_id = $1 AND parent_block > $2', [chainId, after]);
  await db.query('DELETE FROM arbitrum_confirmations WHERE chain_id = $1 AND parent_block > $2', [chainId, after]);
  await db.query('DELETE FROM arbitrum_parent_checkpoints WHERE chain_id = $1 AND number > $2', [chainId, after]);
  await db.query(
    'UPDATE arbitrum_batches SET first_block = NULL, last_block = NULL, range_from_neighbours = false WHERE chain_id = $1 AND range_from_neighbours',
    [chainId],
  );
  await fillRangesFromNeighbours(db, chainId);
  await db.query('UPDATE arbitrum_parent SET indexed_block = $2, indexed_hash = $3 WHERE chain_id = $1', [
    chainId,
    ancestor === null ? null : ancestor.number.toString(),
    ancestor === null ? null : toBytea(ancestor.hash),
  ]);
}

/** Keeps the checkpoints a reorg of `depth` blocks could need, and one below. */
export async function pruneCheckpoints(db: Queryable, chainId: number, keepFrom: bigint): Promise<void> {
  await db.query(
    `DELETE FROM arbitrum_parent_checkpoints WHERE chain_id = $1 AND number < (
       SELECT max(number) FROM arbitrum_parent_checkpoints WHERE chain_id = $1 AND number < $2)`,
    [chainId, keepFrom.toString()],
  );
}

// ── batch numbers from the child node's NodeInterface (sealed-batches.ts, migration 019) ──

/** The child blocks the finder may ask about: from the chain's first message block (and its first stored block) to its indexed tip. */
export async function childBlockSpan(db: Queryable, chainId: number, firstMessageBlock: bigint): Promise<{ from: bigint; to: bigint } | null> {
  const rows = await db.query<{ lowest: string | null; tip: string | null }>(
    `SELECT (SELECT min(number) FROM blocks WHERE chain_id = $1 AND consensus)::text AS lowest,
            (SELECT indexed_block FROM chains WHERE chain_id = $1)::text AS tip`,
    [chainId],
  );
  const r = rows[0];
  if (!r || r.lowest === null || r.tip === null) return null;
  const lowest = BigInt(r.lowest);
  return { from: lowest > firstMessageBlock ? lowest : firstMessageBlock, to: BigInt(r.tip) };
}

/**
 * The lowest child block in `[from, to]` that no batch range holds (neither one seen on the parent
 * nor one the NodeInterface gave), and the first block held again above it (null: none up to
 * `to`). One pass over the ranges at or above `from`, in block order.
 */
export async function firstUnsealedBlock(
  db: Queryable,
  chainId: number,
  span: { from: bigint; to: bigint },
): Promise<{ block: bigint; nextHeld: bigint | null } | null> {
  const rows = await db.query<{ block: string; next_held: string | null }>(
    `WITH r AS (
       SELECT first_block AS f, last_block AS l FROM arbitrum_batches WHERE chain_id = $1 AND first_block IS NOT NULL AND last_block >= $2::bigint
       UNION ALL
       SELECT first_block, last_block FROM arbitrum_sealed_batches WHERE chain_id = $1 AND last_block >= $2::bigint
     ), o AS (
       SELECT f, GREATEST(COALESCE(max(l) OVER (ORDER BY f, l ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) + 1, $2::bigint), $2::bigint) AS s FROM r
     )
     SELECT s::text AS block, f::text AS next_held FROM (
       SELECT s, f FROM o WHERE f > s
       UNION ALL
       SELECT GREATEST(COALESCE(max(l) + 1, $2::bigint), $2::bigint), NULL FROM r
     ) gaps WHERE s <= $3::bigint ORDER BY s LIMIT 1`,
    [chainId, span.from.toString(), span.to.toString()],
  );
  const r = rows[0];
  return r ? { block: BigInt(r.block), nextHeld: r.next_held === null ? null : BigInt(r.next_held) } : null;
}

/**
 * Taken first by a follower's step and by a NodeInterface write (each in its transaction): one
 * waits for the other, so each sees what the other committed. Without it, a step's cleanup of
 * the NodeInterface's rows and a row written meanwhile for the batch the step brings could both
 * miss the other (a row the parent's batch holds would stay).
 */
async function lockParent(tx: Queryable, chainId: number): Promise<void> {
  await tx.query('SELECT chain_id FROM arbitrum_parent WHERE chain_id = $1 FOR UPDATE', [chainId]);
}

/**
 * Child blocks `[first, last]` are in batch `batch` (NodeInterface): the range of that batch's
 * parent row when its transaction gave none (or the NodeInterface gave it before), else merged
 * into the batch's own row, unless the parent's row for it already holds them. In a transaction.
 */
export async function recordSealedBatch(tx: Queryable, chainId: number, batch: bigint, first: bigint, last: bigint): Promise<void> {
  await lockParent(tx, chainId);
  const params = [chainId, batch.toString(), first.toString(), last.toString()];
  const filled = await tx.query(
    `UPDATE arbitrum_batches SET first_block = LEAST(COALESCE(first_block, $3::bigint), $3::bigint),
       last_block = GREATEST(COALESCE(last_block, $4::bigint), $4::bigint), range_from_node = true
     WHERE chain_id = $1 AND batch_number = $2::bigint AND (first_block IS NULL OR range_from_node) RETURNING batch_number`,
    params,
  );
  if (filled.length > 0) return;
  await tx.query(
    `INSERT INTO arbitrum_sealed_batches (chain_id, batch_number, first_block, last_block)
     SELECT $1, $2::bigint, $3::bigint, $4::bigint WHERE NOT EXISTS (
       SELECT 1 FROM arbitrum_batches WHERE chain_id = $1 AND batch_number = $2::bigint AND first_block <= $3::bigint AND last_block >= $4::bigint)
     ON CONFLICT (chain_id, batch_number) DO UPDATE SET first_block = LEAST(arbitrum_sealed_batches.first_block, excluded.first_block),
       last_block = GREATEST(arbitrum_sealed_batches.last_block, excluded.last_block)`,
    params,
  );
}

/**
 * The NodeInterface's rows of batches now seen on the parent: a parent row without a range takes
 * the row's range; a row the parent's range holds is no longer needed.
 */
export async function mergeSealedIntoParentBatches(db: Queryable, chainId: number): Promise<void> {
  await db.query(
    `UPDATE arbitrum_batches b SET first_block = s.first_block, last_block = s.last_block, range_from_node = true
     FROM arbitrum_sealed_batches s
     WHERE b.chain_id = $1 AND s.chain_id = $1 AND s.batch_number = b.batch_number AND b.first_block IS NULL`,
    [chainId],
  );
  await db.query(
    `DELETE FROM arbitrum_sealed_batches s USING arbitrum_batches b
     WHERE s.chain_id = $1 AND b.chain_id = $1 AND b.batch_number = s.batch_number AND b.first_block <= s.first_block AND b.last_block >= s.last_block`,
    [chainId],
  );
}
