import type { Database, Queryable } from '../client.js';
import type { Hex, TokenType } from '../rows.js';
import { toBytea } from '../hex.js';

/**
 * A token's holders at a past block, materialized once into holder_snapshot_rows and then
 * paged like the live list (holders.ts, source `snapshot`). Building one reads the token's
 * history backwards through balance_history_key, keeping each balance's latest row at or below
 * the block: its cost grows with the token's history up to the block; every page after it is
 * one range scan of holder_snapshot_rows_page, whatever the depth.
 */

/** Snapshots kept per chain, and the rows they may hold together; least recently used go first. */
export const MAX_SNAPSHOTS = 64;
export const MAX_SNAPSHOT_ROWS = 50_000_000n;
/** A build runs in one statement; a request's statement timeout would cancel a large one. */
const BUILD_TIMEOUT = '600s';
/** used_at is refreshed at most this often: reads stay reads. */
const TOUCH_AFTER_SECONDS = 60;

export interface SnapshotSummary {
  /** distinct addresses with a positive balance (an ERC-1155 holder counted once) */
  holderCount: bigint;
  /** rows of the list: one per holder, or per holder and id for ERC-1155 */
  rowCount: bigint;
  /** the sum of the balances: the total supply of a standard ERC-20 at the block */
  total: bigint;
}

export interface HistoryBounds {
  /** the chain's indexed block (null: nothing indexed) */
  indexed: bigint | null;
  /** the lowest block history answers for (null: none yet) */
  from: bigint | null;
  /** null when the chain has no such token */
  tokenType: TokenType | null;
  /** the token's first event (null: not known, an index older than the history) */
  tokenFirstBlock: bigint | null;
}

/** What a past-block request is checked against, in one statement. */
export async function historyBounds(db: Queryable, chainId: number, token: Hex): Promise<HistoryBounds> {
  const rows = await db.query<{ indexed: string | null; history_from: string | null; type: TokenType | null; first_block: string | null }>(
    `SELECT c.indexed_block::text AS indexed, c.history_from::text AS history_from, t.type, t.first_block::text AS first_block
     FROM chains c LEFT JOIN tokens t ON t.chain_id = c.chain_id AND t.address = $2
     WHERE c.chain_id = $1`,
    [chainId, toBytea(token)],
    { prepare: true },
  );
  const r = rows[0];
  const big = (v: string | null | undefined) => (v === null || v === undefined ? null : BigInt(v));
  return { indexed: big(r?.indexed), from: big(r?.history_from), tokenType: r?.type ?? null, tokenFirstBlock: big(r?.first_block) };
}

interface CatalogRow {
  holder_count: string;
  row_count: string;
  total: string;
  valid: boolean;
  stale_seconds: number;
}

const summaryOf = (r: CatalogRow): SnapshotSummary => ({ holderCount: BigInt(r.holder_count), rowCount: BigInt(r.row_count), total: BigInt(r.total) });

async function readCatalog(db: Queryable, chainId: number, token: Buffer, block: string): Promise<CatalogRow | undefined> {
  const rows = await db.query<CatalogRow>(
    `SELECT s.holder_count::text, s.row_count::text, s.total::text,
            EXISTS (SELECT 1 FROM blocks b WHERE b.chain_id = s.chain_id AND b.number = s.block_number AND b.consensus AND b.hash = s.block_hash) AS valid,
            extract(epoch FROM now() - s.used_at)::float8 AS stale_seconds
     FROM holder_snapshots s WHERE s.chain_id = $1 AND s.token = $2 AND s.block_number = $3`,
    [chainId, token, block],
    { prepare: true },
  );
  return rows[0];
}

/**
 * The snapshot of `token` at `block` (a consensus block within the kept history: the caller
 * checks), built if it is missing or was taken on a block that has since lost consensus. Two
 * requests building the same one meet on the catalog's primary key: the second waits for the
 * first and reads its result.
 */
export async function snapshotAt(db: Database, chainId: number, token: Hex, block: bigint): Promise<SnapshotSummary> {
  const t = toBytea(token);
  const n = block.toString();
  const found = await readCatalog(db, chainId, t, n);
  if (found?.valid) {
    if (found.stale_seconds > TOUCH_AFTER_SECONDS) {
      await db.query('UPDATE holder_snapshots SET used_at = now() WHERE chain_id = $1 AND token = $2 AND block_number = $3', [chainId, t, n]);
    }
    return summaryOf(found);
  }
  return db.transaction(async (tx) => {
    if (db.engine === 'postgres') await tx.query(`SET LOCAL statement_timeout = '${BUILD_TIMEOUT}'`);
    await deleteSnapshots(tx, chainId, 'AND s.token = $2 AND s.block_number = $3 AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.chain_id = s.chain_id AND b.number = s.block_number AND b.consensus AND b.hash = s.block_hash)', [t, n]);
    const claimed = await tx.query(
      `INSERT INTO holder_snapshots (chain_id, token, block_number, block_hash, holder_count, row_count, total)
       SELECT $1, $2, $3, b.hash, 0, 0, 0 FROM blocks b WHERE b.chain_id = $1 AND b.number = $3 AND b.consensus
       ON CONFLICT DO NOTHING RETURNING 1`,
      [chainId, t, n],
    );
    if (claimed.length === 0) {
      const other = await readCatalog(tx, chainId, t, n);
      if (other?.valid) return summaryOf(other);
      throw new Error(`no consensus block ${n} to take a snapshot at`);
    }
    const made = await tx.query<{ holder_count: string; row_count: string; total: string }>(
      `WITH latest AS (
         SELECT DISTINCT ON (h.holder, h.token_id) h.holder, h.token_id, h.value
         FROM balance_history h
         WHERE h.chain_id = $1 AND h.token = $2 AND h.block_number <= $3
         ORDER BY h.holder DESC, h.token_id DESC, h.block_number DESC
       ), kept AS (
         INSERT INTO holder_snapshot_rows (chain_id, token, block_number, holder, token_id, value)
         SELECT $1, $2, $3, l.holder, l.token_id, l.value FROM latest l
         WHERE l.value > 0 AND l.holder <> '\\x0000000000000000000000000000000000000000'::bytea
         RETURNING holder, value
       )
       UPDATE holder_snapshots s SET holder_count = c.holders, row_count = c.rows, total = c.total
       FROM (SELECT count(DISTINCT holder) AS holders, count(*) AS rows, coalesce(sum(value), 0) AS total FROM kept) c
       WHERE s.chain_id = $1 AND s.token = $2 AND s.block_number = $3
       RETURNING s.holder_count::text, s.row_count::text, s.total::text`,
      [chainId, t, n],
    );
    await evict(tx, chainId, t, n);
    return summaryOf({ ...made[0]!, valid: true, stale_seconds: 0 });
  });
}

/** Deletes catalog rows matching `condition` (on alias s, params from $2) and their rows. */
async function deleteSnapshots(tx: Queryable, chainId: number, condition: string, params: unknown[]): Promise<void> {
  await tx.query(
    `WITH gone AS (DELETE FROM holder_snapshots s WHERE s.chain_id = $1 ${condition} RETURNING s.token, s.block_number)
     DELETE FROM holder_snapshot_rows r USING gone g WHERE r.chain_id = $1 AND r.token = g.token AND r.block_number = g.block_number`,
    [chainId, ...params],
  );
}

/** Least recently used snapshots beyond MAX_SNAPSHOTS or MAX_SNAPSHOT_ROWS, never the one just built. */
async function evict(tx: Queryable, chainId: number, token: Buffer, block: string): Promise<void> {
  await deleteSnapshots(
    tx,
    chainId,
    `AND NOT (s.token = $2 AND s.block_number = $3) AND (s.token, s.block_number) IN (
       SELECT token, block_number FROM (
         SELECT token, block_number, row_number() OVER w AS rank, sum(row_count) OVER w AS rows_before
         FROM holder_snapshots WHERE chain_id = $1 WINDOW w AS (ORDER BY used_at DESC, block_number DESC)
       ) ranked WHERE rank > $4 OR rows_before > $5)`,
    [token, block, MAX_SNAPSHOTS, MAX_SNAPSHOT_ROWS.toString()],
  );
}

/** A rollback's part: snapshots above the fork point were taken on the orphaned branch. */
export async function deleteSnapshotsAbove(tx: Queryable, chainId: number, ancestor: bigint): Promise<void> {
  await deleteSnapshots(tx, chainId, 'AND s.block_number > $2', [ancestor.toString()]);
}

/** One balance at a block: its latest kept change at or below it (0 when there is none). */
export async function balanceAt(db: Queryable, chainId: number, token: Hex, holder: Hex, tokenId: bigint | null, block: bigint): Promise<bigint> {
  const rows = await db.query<{ value: string }>(
    `SELECT h.value::text AS value FROM balance_history h
     WHERE h.chain_id = $1 AND h.token = $2 AND h.holder = $3 AND h.token_id IS NOT DISTINCT FROM $4::numeric AND h.block_number <= $5
     ORDER BY h.block_number DESC LIMIT 1`,
    [chainId, toBytea(token), toBytea(holder), tokenId === null ? null : tokenId.toString(), block.toString()],
    { prepare: true },
  );
  const v = rows[0] ? BigInt(rows[0].value) : 0n;
  return v > 0n ? v : 0n;
}
