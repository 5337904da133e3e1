import type { Database, Queryable } from '../db/client.js';
import type { BalanceRow, Hex } from '../db/rows.js';
import { lockPartMarks, partMarksFrom, setPartMark } from '../db/queries/token-parts.js';
import { UnreconciledBalancesError } from './reconcile.js';
import { writeTokenRows, type TokenWrites } from './token-rows.js';
import type { IndexBatch } from './transform.js';
import { continuesTip, TipMovedError, type Continues } from '../db/queries/progress.js';

/**
 * Parts a backfill batch's tokens are written in, each in a transaction of its own on its own
 * connection. One PostgreSQL backend working alone bounded the write: two connections wrote the
 * same batches ×1.5–1.7 as fast on the 2-core bench machine, four no faster than two
 * (BENCHMARKS.md, "The write"). A constant, not a setting: a crash between the parts' commits is
 * resumed by part number, so the split must be the same when the batch is written again.
 */
export const TOKEN_PARTS = 2;

/**
 * The batch's tokens in `parts` groups of about equal work (keys plus history steps, heaviest
 * token first into the lightest group), each group with its tokens' rows. A function of the batch
 * alone, so that writing the batch again splits it the same; a reconciled balance of a token the
 * batch did not change (the rebasing sweep's) goes with the first group.
 */
export function splitByToken(batch: IndexBatch, reconciled: readonly BalanceRow[], parts: number): TokenWrites[] {
  const weight = new Map<Hex, number>();
  const add = (token: Hex, w: number) => weight.set(token, (weight.get(token) ?? 0) + w);
  if (batch.history === null) for (const d of batch.deltas) add(d.token, 1);
  else for (const c of batch.history) add(c.token, 1 + (c.steps?.length ?? 0));
  for (const token of batch.tokens.keys()) if (!weight.has(token)) weight.set(token, 0);
  const heaviestFirst = [...weight].sort(([a, wa], [b, wb]) => wb - wa || (a < b ? -1 : a > b ? 1 : 0));
  const load = new Array<number>(parts).fill(0);
  const partOf = new Map<Hex, number>();
  for (const [token, w] of heaviestFirst) {
    const lightest = load.indexOf(Math.min(...load));
    partOf.set(token, lightest);
    load[lightest]! += w;
  }
  const groups = Array.from({ length: parts }, () => ({
    tokens: new Map() as TokenWrites['tokens'],
    tokenFirstBlock: new Map<Hex, bigint>(),
    tokenTransfers: batch.tokenTransfers === null ? null : (new Map() as NonNullable<TokenWrites['tokenTransfers']>),
    deltas: [] as TokenWrites['deltas'],
    history: batch.history === null ? null : ([] as NonNullable<TokenWrites['history']>),
    reconciled: [] as BalanceRow[],
  }));
  const groupOf = (token: Hex) => groups[partOf.get(token) ?? 0]!;
  for (const [token, type] of batch.tokens) groupOf(token).tokens.set(token, type);
  for (const [token, block] of batch.tokenFirstBlock) groupOf(token).tokenFirstBlock.set(token, block);
  for (const [token, n] of batch.tokenTransfers ?? []) groupOf(token).tokenTransfers!.set(token, n);
  for (const d of batch.deltas) groupOf(d.token).deltas.push(d);
  for (const c of batch.history ?? []) groupOf(c.token).history!.push(c);
  for (const r of reconciled) groupOf(r.token).reconciled.push(r);
  return groups;
}

/**
 * A batch overlapping the one a token part committed ahead of the indexed block, other than that
 * batch exactly: written, it would count the overlap twice. Nothing is written; the indexer reads
 * the parts' marks again and writes their batch first (./parts-ahead.ts).
 */
export class PartsAheadError extends Error {
  override readonly name = 'PartsAheadError';
  constructor(chainId: number, part: number, at: bigint, from: bigint, to: bigint) {
    super(`token part ${part} of chain ${chainId} committed up to block ${at}, inside the batch ${from}..${to} and not that batch: reading the parts ahead again`);
  }
}

/** In a batch's transaction written whole: refuses it if a token part committed any of its blocks (PartsAheadError). */
export async function refuseIfPartsAhead(tx: Queryable, chainId: number, batch: IndexBatch): Promise<void> {
  const [ahead] = await partMarksFrom(tx, chainId, batch.from);
  if (ahead) throw new PartsAheadError(chainId, ahead.part, ahead.block, batch.from, batch.to);
}

const isEmpty = (w: TokenWrites) => w.tokens.size === 0 && w.deltas.length === 0 && (w.history?.length ?? 0) === 0 && w.reconciled.length === 0;

/**
 * The batch's tokens' rows, part by part at once (writeBatch's `inParts`). Each part's
 * transaction marks the batch as that part's (migration 028); a part whose mark already says so
 * committed it before a crash, and is skipped. Every part is waited for before this settles, so
 * that a retry never overlaps an attempt still in flight; the balances any part drove negative are
 * named together, for one repair (reconcile.ts withBalanceRepair).
 */
export async function writeTokenParts(
  db: Database,
  chainId: number,
  batch: IndexBatch,
  reconciled: readonly BalanceRow[],
  /** the indexed block the batch continues (write-batch.ts `continues`) */
  continues?: Continues,
): Promise<void> {
  const mark = { block: batch.to, hash: batch.blocks[batch.blocks.length - 1]!.hash };
  const writes = splitByToken(batch, reconciled, TOKEN_PARTS);
  // a part with nothing to write has no transaction, unless none has: some part must check the marks
  const noneWrites = writes.every(isEmpty);
  const skipped = (w: TokenWrites, part: number) => isEmpty(w) && !(part === 0 && noneWrites);
  const results = await Promise.allSettled(
    writes.map((w, part) =>
      skipped(w, part)
        ? undefined
        : db.transaction(async (tx) => {
            // Every part's mark, not only this one's, before this part writes: a part refusing
            // the batch alone would let the others commit it, and their marks could then never
            // agree on one batch again. A mark at the batch or above names either this batch (a
            // part that committed it before a crash) or another one: the caller's idea of the
            // parts ahead was stale (a failed step that could not read them), and it reads them again.
            const { tip, marks } = await lockPartMarks(tx, chainId, part, batch.from);
            // a part commits ahead of its batch's own transaction: it checks the tip for itself
            if (continues !== undefined && !continuesTip(continues, tip)) throw new TipMovedError(chainId, continues, tip);
            const other = marks.find((m) => m.block !== mark.block || m.hash !== mark.hash);
            if (other) throw new PartsAheadError(chainId, other.part, other.block, batch.from, batch.to);
            if (marks.some((m) => m.part === part) || isEmpty(w)) return;
            await writeTokenRows(tx, chainId, batch.to, w);
            await setPartMark(tx, chainId, part, mark);
          }),
    ),
  );
  const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (errors.length === 0) return;
  const unreconciled = errors.filter((e): e is UnreconciledBalancesError => e instanceof UnreconciledBalancesError);
  throw unreconciled.length === errors.length ? new UnreconciledBalancesError(unreconciled.flatMap((e) => e.keys)) : errors.find((e) => !(e instanceof UnreconciledBalancesError));
}
