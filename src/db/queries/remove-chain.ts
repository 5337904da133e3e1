import type { Database } from '../client.js';
import { dropChainPartitions } from '../chain-partitions.js';
import { applyLabels, listLabels } from './labels.js';

/**
 * The tables indexing fills for a chain, which `removeChain` empties. The operator's own entries
 * (OPERATOR_TABLES) stay; test/db/remove-chain.test.ts holds every table with a `chain_id` to
 * one list or the other, so a new table cannot be forgotten.
 */
export const INDEXED_TABLES = [
  'balance_changes', 'transfer_counts', 'token_parts', 'holder_snapshots', 'token_balances', 'balance_intervals', 'tokens', 'addresses', 'blocks',
  'ens_events', 'ens_claims', 'ens_reverse_nodes',
  'arbitrum_batches', 'arbitrum_confirmations', 'arbitrum_parent', 'arbitrum_parent_checkpoints', 'arbitrum_sealed_batches',
  'chains',
] as const;
export const OPERATOR_TABLES = ['address_labels', 'address_tags', 'restricted_addresses'] as const;

/**
 * Everything indexed for the chain, gone in one transaction, so that it can be indexed afresh
 * (a node reset to other blocks) or is no longer served (a chain retired): its blocks,
 * balances, history, tokens, addresses and settlement data. Its labels and restricted
 * addresses stay, and the labels' copies on address rows are written again. False when the
 * database had no such chain.
 */
export async function removeChain(db: Database, chainId: number): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [known] = await tx.query<{ n: string }>('SELECT count(*)::text AS n FROM chains WHERE chain_id = $1', [chainId]);
    if (known!.n === '0') return false;
    const labels = await listLabels(tx, { chainId, limit: Number.MAX_SAFE_INTEGER });
    await dropChainPartitions(tx, chainId);
    for (const table of INDEXED_TABLES) await tx.query(`DELETE FROM ${table} WHERE chain_id = $1`, [chainId]);
    await applyLabels(tx, labels);
    return true;
  });
}
