import type { Queryable } from '../db/client.js';
import type { BalanceRow, Hex, TokenType } from '../db/rows.js';
import { applyBalanceDeltas, applyBlockChanges, type BalanceDelta, type KeyChanges } from '../db/queries/write-balances.js';
import { settleBalances } from './reconcile.js';

/**
 * Adds tokens not yet known, with the type their first events implied (never retyping one), and
 * adds the batch's transfers to each token's count. A count not known stays unknown (NULL, as
 * does NULL + n); `transfers` null: the chain's are not counted, so a new token's is unknown too.
 */
async function upsertBatchTokens(db: Queryable, chainId: number, writes: TokenWrites) {
  const { tokens, tokenFirstBlock: firstBlock, tokenTransfers: transfers } = writes;
  if (tokens.size === 0) return;
  const addresses = [...tokens.keys()];
  // first_block is only filled where unknown: a token re-seen keeps its first block (a rollback
  // clears the first blocks of the orphaned branch, write-history.ts)
  await db.query(
    `INSERT INTO tokens AS t (chain_id, address, type, first_block, transfers_count)
     SELECT $1, decode(u.address, 'hex'), u.type, u.first_block, u.transfers
     FROM unnest($2::text[], $3::text[], $4::bigint[], $5::bigint[]) AS u(address, type, first_block, transfers)
     ON CONFLICT (chain_id, address) DO UPDATE
       SET first_block = coalesce(t.first_block, excluded.first_block), transfers_count = t.transfers_count + excluded.transfers_count
       WHERE t.first_block IS NULL OR excluded.transfers_count <> 0`,
    [
      chainId,
      addresses.map((a) => a.slice(2)),
      [...tokens.values()],
      addresses.map((a) => (firstBlock.get(a) ?? 0n).toString()),
      addresses.map((a) => (transfers === null ? null : (transfers.get(a) ?? 0))),
    ],
  );
}

/** What a batch writes per token, for all of its tokens or one group of them (./write-parts.ts). */
export interface TokenWrites {
  tokens: Map<Hex, TokenType>;
  tokenFirstBlock: Map<Hex, bigint>;
  /** each token's transfers in the batch; null when the chain's are not counted */
  tokenTransfers: Map<Hex, number> | null;
  /** net change per key over the batch, used without the history */
  deltas: BalanceDelta[];
  history: KeyChanges[] | null;
  reconciled: readonly BalanceRow[];
}

/**
 * The tokens' rows of a batch ending at `to`: new tokens, transfer counts, balances with their history, holder
 * counts and supply, and the reconciled balances. Balances the batch drives negative must be
 * among `reconciled`; otherwise UnreconciledBalancesError names them, before any commit.
 */
export async function writeTokenRows(tx: Queryable, chainId: number, to: bigint, writes: TokenWrites): Promise<void> {
  await upsertBatchTokens(tx, chainId, writes);
  // one statement for the balances and their history, before the reconciled values are set:
  // the per-block values derive from the event deltas
  const negative =
    writes.history === null ? await applyBalanceDeltas(tx, chainId, to, writes.deltas) : await applyBlockChanges(tx, chainId, writes.history);
  await settleBalances(tx, chainId, negative, writes.reconciled);
}

