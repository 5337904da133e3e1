import type { Database, Queryable } from '../client.js';
import type { Hex, TokenType } from '../rows.js';
import { toBytea } from '../hex.js';
import { ZERO_ADDRESS } from '../../evm/hex.js';
import { holdersAtSql } from './holder-rows.js';
import { countGate } from './read-gate.js';

/**
 * Balances at a past block (migration 023; which rows answer at N: holder-rows.ts): one
 * balance, the counts, and what a request at N is checked against. The lists at N are the
 * holders statements with a past source (holders.ts), two page indexes merged, so a page at N
 * costs what a live page costs at any depth, with nothing built first.
 */

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

/** One balance at a block: the live row if set by then, else the interval spanning it, else 0. */
export async function balanceAt(db: Queryable, chainId: number, token: Hex, holder: Hex, tokenId: bigint | null, block: bigint): Promise<bigint> {
  const rows = await db.query<{ value: string | null }>(
    `SELECT coalesce(
       (SELECT b.value FROM token_balances b
        WHERE b.chain_id = $1 AND b.token = $2 AND b.holder = $3 AND b.token_id IS NOT DISTINCT FROM $4::numeric AND b.block_number <= $5),
       (SELECT i.value FROM balance_intervals i
        WHERE i.chain_id = $1 AND i.token = $2 AND i.holder = $3 AND i.token_id IS NOT DISTINCT FROM $4::numeric
          AND i.to_block > $5 AND i.from_block <= $5
        ORDER BY i.to_block LIMIT 1))::text AS value`,
    [chainId, toBytea(token), toBytea(holder), tokenId === null ? null : tokenId.toString(), block.toString()],
    { prepare: true },
  );
  const v = rows[0]?.value ? BigInt(rows[0].value) : 0n;
  return v > 0n && holder.toLowerCase() !== ZERO_ADDRESS ? v : 0n;
}

export interface HoldersSummary {
  /** distinct addresses with a positive balance (an ERC-1155 holder counted once) */
  holderCount: bigint;
  /** the sum of the balances: the total supply of a standard ERC-20 at the block */
  total: bigint;
}

/** Summaries kept per chain; least recently used go first. */
export const MAX_SUMMARIES = 256;
/** A count runs in one statement over the token's holders at N; a request's timeout would cancel a large one. */
const COUNT_TIMEOUT = '600s';
/** used_at is refreshed at most this often: reads stay reads. */
const TOUCH_AFTER_SECONDS = 60;

interface SummaryRow {
  holder_count: string;
  total: string;
  valid: boolean;
  stale_seconds: number;
}

const summaryOf = (r: Pick<SummaryRow, 'holder_count' | 'total'>): HoldersSummary => ({ holderCount: BigInt(r.holder_count), total: BigInt(r.total) });

async function readSummary(db: Queryable, chainId: number, token: Buffer, block: string): Promise<SummaryRow | undefined> {
  const rows = await db.query<SummaryRow>(
    `SELECT s.holder_count::text, s.total::text,
            EXISTS (SELECT 1 FROM blocks b WHERE b.chain_id = s.chain_id AND b.number = s.block_number AND b.consensus AND b.hash = s.block_hash) AS valid,
            extract(epoch FROM now() - s.used_at)::float8 AS stale_seconds
     FROM holder_snapshots s WHERE s.chain_id = $1 AND s.token = $2 AND s.block_number = $3`,
    [chainId, token, block],
    { prepare: true },
  );
  return rows[0];
}

/**
 * The holder count and total of `token` at `block` (a consensus block within the kept history:
 * the caller checks). A count is a pass over the token's holders at the block, so it is kept in
 * holder_snapshots with the block's hash and reused until that block loses consensus. Counts
 * not kept yet go through the process's count gate (read-gate.ts): ReadsBusyError when full.
 */
export async function summaryAt(db: Database, chainId: number, token: Hex, tokenType: TokenType, block: bigint): Promise<HoldersSummary> {
  const t = toBytea(token);
  const n = block.toString();
  const found = await readSummary(db, chainId, t, n);
  if (found?.valid) {
    if (found.stale_seconds > TOUCH_AFTER_SECONDS) {
      await db.query('UPDATE holder_snapshots SET used_at = now() WHERE chain_id = $1 AND token = $2 AND block_number = $3', [chainId, t, n]);
    }
    return summaryOf(found);
  }
  return countGate.run(db, `${chainId}:${token}:${n}`, () => countAt(db, chainId, t, tokenType, n));
}

/** One count, kept with its block's hash; at most a few run at once (read-gate.ts). */
function countAt(db: Database, chainId: number, t: Buffer, tokenType: TokenType, n: string): Promise<HoldersSummary> {
  return db.transaction(async (tx) => {
    if (db.engine === 'postgres') await tx.query(`SET LOCAL statement_timeout = '${COUNT_TIMEOUT}'`);
    // ERC-1155 has a row per holder and id; every other type one per holder
    const holders = tokenType === 'ERC-1155' ? 'count(DISTINCT b.holder)' : 'count(*)';
    const made = await tx.query<{ holder_count: string; total: string }>(
      `WITH c AS (SELECT ${holders} AS holders, coalesce(sum(b.value), 0) AS total FROM ${holdersAtSql('$3::bigint')} b)
       INSERT INTO holder_snapshots (chain_id, token, block_number, block_hash, holder_count, total)
       SELECT $1, $2, $3, bl.hash, c.holders, c.total FROM c JOIN blocks bl ON bl.chain_id = $1 AND bl.number = $3 AND bl.consensus
       ON CONFLICT (chain_id, token, block_number)
       DO UPDATE SET block_hash = excluded.block_hash, holder_count = excluded.holder_count, total = excluded.total, used_at = now()
       RETURNING holder_count::text, total::text`,
      [chainId, t, n],
    );
    if (!made[0]) throw new Error(`no consensus block ${n} to count holders at`);
    await evict(tx, chainId);
    return summaryOf(made[0]);
  });
}

/** Least recently used summaries beyond MAX_SUMMARIES. */
async function evict(tx: Queryable, chainId: number): Promise<void> {
  await tx.query(
    `DELETE FROM holder_snapshots WHERE chain_id = $1 AND (token, block_number) IN (
       SELECT token, block_number FROM holder_snapshots WHERE chain_id = $1
       ORDER BY used_at DESC, block_number DESC OFFSET $2)`,
    [chainId, MAX_SUMMARIES],
  );
}

/** A rollback's part: counts above the fork point were taken on the orphaned branch. */
export async function deleteSummariesAbove(tx: Queryable, chainId: number, ancestor: bigint): Promise<void> {
  await tx.query('DELETE FROM holder_snapshots WHERE chain_id = $1 AND block_number > $2', [chainId, ancestor.toString()]);
}
