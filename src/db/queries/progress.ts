import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { fromHexText } from '../hex.js';

/**
 * The last block whose data is fully committed. Written in the same transaction as that
 * data, so after any crash the indexer resumes exactly after it.
 */
export async function indexedBlock(db: Queryable, chainId: number): Promise<{ number: bigint; hash: Hex } | null> {
  const rows = await db.query<{ number: string; hash: string }>(
    `SELECT b.number::text AS number, encode(b.hash, 'hex') AS hash
     FROM chains c JOIN blocks b ON b.chain_id = c.chain_id AND b.number = c.indexed_block AND b.consensus
     WHERE c.chain_id = $1`,
    [chainId],
  );
  const row = rows[0];
  return row ? { number: BigInt(row.number), hash: fromHexText(row.hash) } : null;
}

/**
 * The lowest block indexed: where the chain's indexing began (its start block then). The lowest
 * consensus block, the first entry of blocks_consensus_number (an orphan never sits below it).
 */
export async function firstIndexedBlock(db: Queryable, chainId: number): Promise<bigint | null> {
  const rows = await db.query<{ n: string | null }>('SELECT min(number)::text AS n FROM blocks WHERE chain_id = $1 AND consensus', [chainId], {
    prepare: true,
  });
  return rows[0]?.n == null ? null : BigInt(rows[0].n);
}

/** What one batch moves of its chain's progress (write-batch.ts). */
export interface BatchProgress {
  /** the batch's last block: now indexed */
  indexed: bigint;
  /** changes_from, where exact rollbacks start: `set` moves it there; `orKeep` sets it only where there is none */
  changesFrom: { set: bigint } | { orKeep: bigint };
  /** with the balance history, the batch's first block: where the history starts, unless it already has a start (an upgrade's or a prune's) */
  historyFrom: bigint | null;
  /** the indexed block the batch continues, checked (TipMovedError); undefined: not checked */
  continues?: Continues | undefined;
}

/**
 * The indexed block a batch continues: the one before its first. `orNone` when the writer holds
 * no tip of its own (a chain's first batch; or the first after a rollback below the start block,
 * which leaves the block before the start as the indexed block, a block with no row).
 */
export interface Continues {
  block: bigint;
  orNone: boolean;
}

/** Whether the database's indexed block `actual` (null: none) is the one the batch continues. */
export const continuesTip = (c: Continues, actual: bigint | null): boolean => actual === c.block || (c.orNone && actual === null);

/**
 * A batch written for a tip the database no longer has, while the indexer's process lived on:
 * a failover to a standby that had not yet received the last commits (asynchronous replication),
 * or a restore. The lost writer lock's connection stops the chain's run as well (run.ts), but a
 * step already past its reads could otherwise commit over the gap before it does. Writing on
 * would leave the lost blocks missing for ever; the indexer resumes from the database instead
 * (chain-indexer.ts `recover`).
 */
export class TipMovedError extends Error {
  override readonly name = 'TipMovedError';
  constructor(chainId: number, expected: Continues, actual: bigint | null) {
    super(
      `chain ${chainId}: a batch was written to follow block ${expected.block}${expected.orNone ? ' (or none)' : ''}, but the database's indexed block is ${actual ?? '(none)'} ` +
        '(a failover or a restore took its last commits): resuming from the database',
    );
  }
}

/** Refuses the transaction (TipMovedError) unless the chain's indexed block is the one `expected` continues. */
export async function refuseUnlessTipIs(tx: Queryable, chainId: number, expected: Continues): Promise<void> {
  const [row] = await tx.query<{ indexed: string | null }>('SELECT indexed_block::text AS indexed FROM chains WHERE chain_id = $1', [chainId]);
  const actual = row?.indexed == null ? null : BigInt(row.indexed);
  if (!continuesTip(expected, actual)) throw new TipMovedError(chainId, expected, actual);
}

/**
 * The progress of a batch in one statement of its transaction: each of these was a round trip
 * of its own, and a round trip in the write's transaction waits for whatever JavaScript holds
 * the event loop when its answer comes (the next batch's transform, a node's answer being
 * parsed), while the database idles.
 */
export async function recordBatchProgress(db: Queryable, chainId: number, p: BatchProgress): Promise<void> {
  const [keep, changesFrom] = 'orKeep' in p.changesFrom ? [true, p.changesFrom.orKeep] : [false, p.changesFrom.set];
  const c = p.continues;
  const rows = await db.query<{ ok: number }>(
    `UPDATE chains SET indexed_block = $2, updated_at = now(),
       changes_from = CASE WHEN $3::boolean THEN coalesce(changes_from, $4::bigint) ELSE $4::bigint END,
       history_from = coalesce(history_from, $5::bigint)
     WHERE chain_id = $1 AND ($6::boolean OR indexed_block = $7::bigint OR ($8::boolean AND indexed_block IS NULL))
     RETURNING 1 AS ok`,
    [
      chainId,
      p.indexed.toString(),
      keep,
      changesFrom.toString(),
      p.historyFrom === null ? null : p.historyFrom.toString(),
      c === undefined,
      c?.block.toString() ?? null,
      c?.orNone ?? false,
    ],
  );
  if (rows.length === 0 && p.continues !== undefined) {
    await refuseUnlessTipIs(db, chainId, p.continues);
    throw new Error(`chain ${chainId} has no row in chains`);
  }
}

export async function setIndexedBlock(db: Queryable, chainId: number, block: bigint | null): Promise<void> {
  await db.query('UPDATE chains SET indexed_block = $2, updated_at = now() WHERE chain_id = $1', [
    chainId,
    block === null ? null : block.toString(),
  ]);
}

/** The node's head, and (polled_at) that the indexer reached its node just now: its heartbeat. */
export async function setHeadBlock(db: Queryable, chainId: number, head: bigint): Promise<void> {
  await db.query('UPDATE chains SET head_block = $2, polled_at = now() WHERE chain_id = $1', [chainId, head.toString()]);
}

/** Our consensus hashes for a range of heights, to find where the node's chain diverged. */
export async function consensusHashes(db: Queryable, chainId: number, from: bigint, to: bigint): Promise<Map<bigint, Hex>> {
  const rows = await db.query<{ number: string; hash: string }>(
    `SELECT number::text AS number, encode(hash, 'hex') AS hash FROM blocks
     WHERE chain_id = $1 AND consensus AND number BETWEEN $2 AND $3`,
    [chainId, from.toString(), to.toString()],
  );
  return new Map(rows.map((r) => [BigInt(r.number), fromHexText(r.hash)]));
}

/** Whether `hash` was block `number` of the chain until a reorg replaced it (an orphaned block kept as type "reorg"). */
export async function wasOrphaned(db: Queryable, chainId: number, number: bigint, hash: string): Promise<boolean> {
  const rows = await db.query(
    `SELECT 1 FROM blocks WHERE chain_id = $1 AND hash = decode($2, 'hex') AND number = $3 AND NOT consensus`,
    [chainId, hash.slice(2), number.toString()],
  );
  return rows.length > 0;
}

/**
 * Marks the blocks above `ancestor` as orphaned: they stay, listed as type "reorg". Returns how
 * many, and the uncles they included (which go with them: write-uncles.ts releaseUncles).
 */
export async function orphanBlocksAbove(db: Queryable, chainId: number, ancestor: bigint): Promise<{ orphaned: number; uncles: Hex[] }> {
  const rows = await db.query<{ uncle_hashes: Hex[] | string }>(
    'UPDATE blocks SET consensus = false WHERE chain_id = $1 AND number > $2 AND consensus RETURNING uncle_hashes',
    [chainId, ancestor.toString()],
  );
  const uncles = rows.flatMap((r) => (typeof r.uncle_hashes === 'string' ? (JSON.parse(r.uncle_hashes) as Hex[]) : r.uncle_hashes));
  return { orphaned: rows.length, uncles };
}

export async function changesFrom(db: Queryable, chainId: number): Promise<bigint | null> {
  const rows = await db.query<{ changes_from: string | null }>('SELECT changes_from::text AS changes_from FROM chains WHERE chain_id = $1', [chainId]);
  const v = rows[0]?.changes_from;
  return v === null || v === undefined ? null : BigInt(v);
}

export async function setChangesFrom(db: Queryable, chainId: number, block: bigint | null): Promise<void> {
  await db.query('UPDATE chains SET changes_from = $2 WHERE chain_id = $1', [chainId, block === null ? null : block.toString()]);
}
