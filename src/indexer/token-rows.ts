import type { Queryable } from '../db/client.js';
import type { BalanceRow, Hex, TokenType } from '../db/rows.js';
import { applyBalanceDeltas, applyBlockChanges, type BalanceDelta, type KeyChanges } from '../db/queries/write-balances.js';
import { settleBalances } from './reconcile.js';
import type { TokenTransfers } from '../db/queries/transfer-counts.js';

/**
 * Adds tokens not yet known, with the type their first events implied (never retyping one), and
 * adds the batch's transfers to each token's count, with the last block they are in. A count not
 * known stays unknown (NULL, as does NULL + n); `transfers` null: the chain's are not counted, so
 * a new token's is unknown too.
 */
async function upsertBatchTokens(db: Queryable, chainId: number, writes: TokenWrites) {
  const { tokens, tokenFirstBlock: firstBlock, tokenTransfers: transfers } = writes;
  if (tokens.size === 0) return;
  const addresses = [...tokens.keys()];
  const counted = addresses.map((a) => transfers?.get(a) ?? null);
  // first_block is only filled where unknown: a token re-seen keeps its first block (a rollback
  // clears the first blocks of the orphaned branch, write-history.ts)
  await db.query(
    `INSERT INTO tokens AS t (chain_id, address, type, first_block, transfers_count, last_transfer_block)
     SELECT $1, decode(u.address, 'hex'), u.type, u.first_block, CASE WHEN $7 THEN coalesce(u.transfers, 0) END, u.last_block
     FROM unnest($2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[]) AS u(address, type, first_block, transfers, last_block)
     ON CONFLICT (chain_id, address) DO UPDATE
       SET first_block = coalesce(t.first_block, excluded.first_block), transfers_count = t.transfers_count + excluded.transfers_count,
           last_transfer_block = greatest(t.last_transfer_block, excluded.last_transfer_block)
       WHERE t.first_block IS NULL OR excluded.last_transfer_block IS NOT NULL`,
    [
      chainId,
      addresses.map((a) => a.slice(2)),
      [...tokens.values()],
      addresses.map((a) => (firstBlock.get(a) ?? 0n).toString()),
      counted.map((c) => c?.transfers ?? null),
      counted.map((c) => c?.lastBlock.toString() ?? null),
      transfers !== null,
    ],
  );
}

/** What a batch writes per token, for all of its tokens or one group of them (./write-parts.ts). */
export interface TokenWrites {
  tokens: Map<Hex, TokenType>;
  tokenFirstBlock: Map<Hex, bigint>;
  /** each token's transfers in the batch and their last block; null when the chain's are not counted */
  tokenTransfers: Map<Hex, TokenTransfers> | null;
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

