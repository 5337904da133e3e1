import type { Queryable } from '../client.js';
import type { BalanceRow, Hex } from '../rows.js';
import { fromHexText, hexArray, tokenIdText, ZERO_ADDRESS_BYTEA } from '../hex.js';
import { heldSql } from './holder-rows.js';
import { refreshHolderCounts } from './write-tokens.js';
import { closeIntervals, SET_ABSOLUTE } from './write-history.js';

/** Net change of one (token, holder, token_id) balance over a batch of blocks. */
export interface BalanceDelta {
  token: Hex;
  holder: Hex;
  tokenId: bigint | null;
  delta: bigint;
}

export interface BalanceKey {
  token: Hex;
  holder: Hex;
  tokenId: bigint | null;
}

/** A balance's net change within one block. */
export type BlockDelta = BalanceDelta & { blockNumber: bigint };

/**
 * A balance's changes over a batch (indexer/balance-sum.ts): their sum, the block of the last
 * and, when they fall in several blocks, each block's sum in block order (null: one block).
 */
export interface KeyChanges extends BlockDelta {
  steps: Array<{ blockNumber: bigint; delta: bigint }> | null;
}

/** Per-block changes as bulk parameters $2..$6 (blockDeltaArrays), read as rows `u`. */
const BLOCK_DELTAS = 'unnest($2::text[], $3::text[], $4::numeric[], $5::bigint[], $6::numeric[]) WITH ORDINALITY AS u(token, holder, token_id, block_number, delta, k)';

/** Per-block changes as bulk parameters: token, holder, token_id, block_number, delta. */
function blockDeltaArrays(changes: readonly BlockDelta[]) {
  return [
    hexArray(changes.map((c) => c.token)),
    hexArray(changes.map((c) => c.holder)),
    changes.map((c) => tokenIdText(c.tokenId)),
    changes.map((c) => c.blockNumber.toString()),
    changes.map((c) => c.delta.toString()),
  ] as const;
}

/**
 * Adds net deltas (unique per key) to current balances, with holder counts in step
 * (balanceWriteSql). No history: a rollback's undo, whose orphaned history rows go by block.
 * Returns the rows that went negative.
 */
export function applyBalanceDeltas(db: Queryable, chainId: number, blockNumber: bigint, deltas: readonly BalanceDelta[]): Promise<BalanceKey[]> {
  return writeBalances(db, chainId, deltas.map((d) => ({ ...d, blockNumber, steps: null })), false);
}

/**
 * Applies a batch's changes (unique per key) to current balances and, in the same statement,
 * keeps the values they replaced as intervals in balance_intervals (balanceWriteSql).
 * Returns the rows that went negative.
 */
export function applyBlockChanges(db: Queryable, chainId: number, changes: readonly KeyChanges[]): Promise<BalanceKey[]> {
  return writeBalances(db, chainId, changes, true);
}

/**
 * A token's change of held supply (migration 025) over rows of `moved`: what its positive
 * balances gained, the zero address's left out (its row is minus what was minted).
 */
const SUPPLY_CHANGE = (after: string, before: string) =>
  `sum(CASE WHEN holder = ${ZERO_ADDRESS_BYTEA} THEN 0 ELSE greatest(${after}, 0) - greatest(${before}, 0) END)`;

/**
 * Holder counts and held supply moved by `moved`'s rows (token, change, supply). ERC-1155
 * counts distinct addresses, so its tokens are recounted after the statement; their supply is
 * kept here like any other's.
 */
const COUNTED = `UPDATE tokens t SET holder_count = t.holder_count + CASE WHEN t.type = 'ERC-1155' THEN 0 ELSE moved.change END,
                         held_supply = t.held_supply + moved.supply
       FROM moved WHERE t.chain_id = $1 AND t.address = moved.token
         AND ((moved.change <> 0 AND t.type <> 'ERC-1155') OR moved.supply <> 0)`;

/**
 * One statement: adds each key's sum to its current balance and keeps holder counts and held
 * supply in step (a row crossing from ≤ 0 to > 0 adds a holder, the reverse removes one;
 * ERC-1155 counts distinct addresses, so its touched tokens are recounted after it). The
 * upsert's SET leaves the row's previous value and block in prev_value and prev_block
 * (migration 027), so RETURNING has each key's value before and after the batch: neither
 * token_balances nor the batch's changes are read again, and no value passes through a number.
 * With `history`, each live row takes the exact block of its last change, and every change
 * closes the interval of the value before it (migration 023):
 * - a key changed in one block closes the value before the batch, from the row's previous block;
 * - a key changed in several blocks closes one value per block it changed in: the value before
 *   the batch plus its changes in the batch's earlier blocks (`before`), from its previous
 *   change's block or, for its first, the row's previous block. These `steps` rows are worked
 *   out by the indexer (keyChangeArrays) and joined to their key's upserted row.
 * Keys whose changes net to zero over the batch are upserted too (value + 0): their intervals
 * need the row's value.
 */
function balanceWriteSql(history: boolean): string {
  const before = 'coalesce(up.prev_value, 0)';
  // Each upserted row carries its key's position in the batch (batch_key), so the steps and the
  // per-key flags find it by an integer, with no join on the key's bytes: a batch whose hot
  // senders changed in every block has several steps per key (34,760 for 8,937 keys), and joining
  // them by key sorted them all (BENCHMARKS.md). (A join of the upserted rows back to the batch's
  // changes, before prev_value, was once estimated at a handful of rows and planned as a nested
  // loop over the steps: 92 M comparisons, 14.6 s for one batch.)
  return `WITH up AS (
       INSERT INTO token_balances AS b (chain_id, token, holder, token_id, value, block_number, batch_key)
       SELECT $1, decode(u.token, 'hex'), decode(u.holder, 'hex'), u.token_id, u.delta, u.block_number, u.k
       FROM ${BLOCK_DELTAS}
       -- in key order consecutive rows land on the same index pages: ~25% faster than the
       -- order transfers came in (BENCHMARKS.md)
       ORDER BY 2, 3, 4
       ON CONFLICT ON CONSTRAINT token_balances_key
       DO UPDATE SET value = b.value + excluded.value, prev_value = b.value, prev_block = b.block_number,
                     block_number = excluded.block_number, batch_key = excluded.batch_key
       RETURNING b.token, b.holder, b.token_id, b.value, b.prev_value, b.prev_block, b.block_number, b.batch_key
     ), moved AS (
       SELECT token, sum(CASE WHEN value > 0 AND ${before} <= 0 THEN 1
                              WHEN value <= 0 AND ${before} > 0 THEN -1 ELSE 0 END) AS change,
              ${SUPPLY_CHANGE('value', before)} AS supply
       FROM up GROUP BY token
     ), counted AS (
       ${COUNTED}
     )${
       history
         ? `, steps AS (
       SELECT s.k, s.to_block, s.from_block, s.before
       FROM unnest($7::bigint[], $8::bigint[], $9::bigint[], $10::numeric[]) AS s(k, to_block, from_block, before)
     ), closed AS (
       SELECT up.token, up.holder, up.token_id, up.block_number AS to_block, up.prev_value AS value, up.prev_block AS from_block
       FROM up WHERE NOT ($11::boolean[])[up.batch_key]
       UNION ALL
       SELECT up.token, up.holder, up.token_id, s.to_block, ${before} + s.before, coalesce(s.from_block, up.prev_block)
       FROM steps s JOIN up ON up.batch_key = s.k
     ), kept AS (
       INSERT INTO balance_intervals (chain_id, token, holder, token_id, value, from_block, to_block)
       SELECT $1, c.token, c.holder, c.token_id, c.value, c.from_block, c.to_block FROM closed c
       -- only positive values answer anything (a balance without an interval at N is 0 there);
       -- a row first written in the batch has no previous block
       WHERE ${heldSql('c')} AND c.from_block < c.to_block
     )`
         : ''
     }
     SELECT encode(token, 'hex') AS token, encode(holder, 'hex') AS holder, token_id::text AS token_id
     FROM up WHERE value < 0`;
}

const BALANCE_WRITE = { history: balanceWriteSql(true), plain: balanceWriteSql(false) } as const;

/** A batch's keys as bulk parameters $2..$6 (blockDeltaArrays: the block is their last change's) and, with the history, the steps of those changed in several blocks as $7..$10 (by the key's position) and each key's has-steps flag $11. */
function keyChangeArrays(changes: readonly KeyChanges[], history: boolean): unknown[] {
  const keys = blockDeltaArrays(changes);
  if (!history) return [...keys];
  const k: number[] = [];
  const to: string[] = [];
  const from: Array<string | null> = [];
  const before: string[] = [];
  changes.forEach((c, i) => {
    if (c.steps === null) return;
    let sum = 0n;
    let previous: string | null = null;
    for (const step of c.steps) {
      const block = step.blockNumber.toString();
      k.push(i + 1);
      to.push(block);
      from.push(previous);
      before.push(sum.toString());
      sum += step.delta;
      previous = block;
    }
  });
  return [...keys, k, to, from, before, changes.map((c) => c.steps !== null)];
}

async function writeBalances(db: Queryable, chainId: number, changes: readonly KeyChanges[], history: boolean): Promise<BalanceKey[]> {
  if (changes.length === 0) return [];
  const negative = await db.query<{ token: string; holder: string; token_id: string | null }>(
    history ? BALANCE_WRITE.history : BALANCE_WRITE.plain,
    [chainId, ...keyChangeArrays(changes, history)],
  );
  await recountMultiTokenHolders(db, chainId, [...new Set(changes.filter((d) => d.tokenId !== null).map((d) => d.token))]);
  return negative.map((r) => ({ token: fromHexText(r.token), holder: fromHexText(r.holder), tokenId: r.token_id === null ? null : BigInt(r.token_id) }));
}

/**
 * Sets balances to absolute values (what the token contracts report), keeping holder counts in
 * step as applyBalanceDeltas does: by the rows that cross zero, not by recounting the token's
 * holders, so setting a few balances of a token with a million holders costs a few rows.
 * Keys must be unique.
 */
export async function setBalances(db: Queryable, chainId: number, rows: readonly BalanceRow[]): Promise<void> {
  if (rows.length === 0) return;
  await closeIntervals(db, chainId, rows);
  await db.query(
    `WITH d AS (
       SELECT decode(u.token, 'hex') AS token, decode(u.holder, 'hex') AS holder, u.token_id, u.value, u.block_number
       FROM unnest($2::text[], $3::text[], $4::numeric[], $5::numeric[], $6::bigint[]) AS u(token, holder, token_id, value, block_number)
     ), prev AS (
       -- the statement's snapshot: the values before this statement sets them
       SELECT d.token, d.holder, d.value AS next, coalesce(b.value, 0) AS before
       FROM d LEFT JOIN token_balances b
         ON b.chain_id = $1 AND b.token = d.token AND b.holder = d.holder AND b.token_id IS NOT DISTINCT FROM d.token_id
       WHERE d.holder <> ${ZERO_ADDRESS_BYTEA}
     ), up AS (
       INSERT INTO token_balances AS b (chain_id, token, holder, token_id, value, block_number)
       SELECT $1, d.token, d.holder, d.token_id, d.value, d.block_number FROM d ORDER BY d.token, d.holder, d.token_id
       ON CONFLICT ON CONSTRAINT token_balances_key DO UPDATE SET ${SET_ABSOLUTE}
     ), moved AS (
       SELECT token, sum(CASE WHEN next > 0 AND before <= 0 THEN 1 WHEN next <= 0 AND before > 0 THEN -1 ELSE 0 END) AS change,
              ${SUPPLY_CHANGE('next', 'before')} AS supply
       FROM prev GROUP BY token
     )
     ${COUNTED}`,
    [
      chainId,
      hexArray(rows.map((r) => r.token)),
      hexArray(rows.map((r) => r.holder)),
      rows.map((r) => tokenIdText(r.tokenId)),
      rows.map((r) => r.value.toString()),
      rows.map((r) => r.blockNumber.toString()),
    ],
  );
  await recountMultiTokenHolders(db, chainId, [...new Set(rows.filter((r) => r.tokenId !== null).map((r) => r.token))]);
}

async function recountMultiTokenHolders(db: Queryable, chainId: number, tokens: readonly Hex[]): Promise<void> {
  if (tokens.length > 0) await refreshHolderCounts(db, chainId, tokens);
}

/** Keeps a block's deltas while it can still be reorganised away. */
export async function recordBalanceChanges(db: Queryable, chainId: number, changes: readonly BlockDelta[]): Promise<void> {
  if (changes.length === 0) return;
  await db.query(
    `INSERT INTO balance_changes (chain_id, block_number, token, holder, token_id, delta)
     SELECT $1, u.block_number, decode(u.token, 'hex'), decode(u.holder, 'hex'), u.token_id, u.delta
     FROM ${BLOCK_DELTAS}`,
    [chainId, ...blockDeltaArrays(changes)],
  );
}

/** The net deltas recorded above `ancestor`, removed from the record as they are read. */
export async function takeBalanceChangesAbove(db: Queryable, chainId: number, ancestor: bigint): Promise<BalanceDelta[]> {
  const rows = await db.query<{ token: string; holder: string; token_id: string | null; delta: string }>(
    `WITH gone AS (DELETE FROM balance_changes WHERE chain_id = $1 AND block_number > $2
                   RETURNING token, holder, token_id, delta)
     SELECT encode(token, 'hex') AS token, encode(holder, 'hex') AS holder, token_id::text AS token_id,
            sum(delta)::text AS delta
     FROM gone GROUP BY token, holder, token_id`,
    [chainId, ancestor.toString()],
  );
  return rows.map((r) => ({
    token: fromHexText(r.token),
    holder: fromHexText(r.holder),
    tokenId: r.token_id === null ? null : BigInt(r.token_id),
    delta: BigInt(r.delta),
  }));
}

export async function pruneBalanceChanges(db: Queryable, chainId: number, belowBlock: bigint): Promise<void> {
  await db.query('DELETE FROM balance_changes WHERE chain_id = $1 AND block_number < $2', [chainId, belowBlock.toString()]);
}

/** Rows last changed above `block`: what a reorg deeper than the recorded window touched. */
export async function balancesChangedAbove(db: Queryable, chainId: number, block: bigint): Promise<BalanceKey[]> {
  const rows = await db.query<{ token: string; holder: string; token_id: string | null }>(
    `SELECT encode(token, 'hex') AS token, encode(holder, 'hex') AS holder, token_id::text AS token_id
     FROM token_balances WHERE chain_id = $1 AND block_number > $2`,
    [chainId, block.toString()],
  );
  return rows.map((r) => ({ token: fromHexText(r.token), holder: fromHexText(r.holder), tokenId: r.token_id === null ? null : BigInt(r.token_id) }));
}

export async function negativeBalances(db: Queryable, chainId: number): Promise<BalanceKey[]> {
  const rows = await db.query<{ token: string; holder: string; token_id: string | null }>(
    `SELECT encode(token, 'hex') AS token, encode(holder, 'hex') AS holder, token_id::text AS token_id
     FROM token_balances WHERE chain_id = $1 AND value < 0`,
    [chainId],
  );
  return rows.map((r) => ({ token: fromHexText(r.token), holder: fromHexText(r.holder), tokenId: r.token_id === null ? null : BigInt(r.token_id) }));
}
