/**
 * A block's settlement as the API reads it: its batch and its confirmation from the kind's tables
 * (one probe of each by child block number, joined where the block row is read) and the parent's
 * `safe` block, which decides whether their transactions are final.
 */
import type { Static } from '@sinclair/typebox';
import type { ParentChainTransaction } from './schema.js';
import { isoTimestamp } from '../../api/views/timestamp.js';

/** As the SQL below builds it (JSON: numbers for block numbers, hashes 0x-hex). */
export interface StoredSettlement {
  batch: { number: number; container: string | null; tx: string; parent_block: number; parent_timestamp: number } | null;
  confirmation: { tx: string; parent_block: number; parent_timestamp: number } | null;
  /** the batch the child node's NodeInterface gave, for a block whose batch was not seen on the parent */
  sealed: number | null;
  safe_block: number | null;
}

/**
 * The block's batch (the first whose last block is at or after it, if it starts at or before it),
 * the same from the batches the NodeInterface gave (`sealed`, used when the first is unknown),
 * and confirmation (the first whose confirmed block is at or after it), with the parent's safe
 * block; NULL for blocks without Arbitrum fields, for blocks that lost consensus, and on chains whose parent is not followed (no
 * `arbitrum` setting): their settlement is unknown, not "Processed on rollup".
 */
// One probe of the parent row by its key decides whether the parent is followed (no row: the
// settlement is unknown) and gives the safe block; the batch and confirmation probes walk their
// indexes in order, so a blocks page stays index scans with no sort on every chain.
// A block that lost consensus has no settlement: the batches and confirmations found by its
// number are the new branch's (L2 review: an orphaned block showed "Confirmed on base").
export const settlementSql = (b: string): string => `CASE WHEN ${b}.chain_fields -> 'arbitrum' IS NOT NULL AND ${b}.consensus THEN (
  SELECT json_build_object(
  'batch', (SELECT json_build_object('number', x.batch_number, 'container', x.data_container, 'tx', '0x' || encode(x.tx_hash, 'hex'),
                                     'parent_block', x.parent_block, 'parent_timestamp', x.parent_timestamp)
            FROM (SELECT * FROM arbitrum_batches WHERE chain_id = ${b}.chain_id AND last_block >= ${b}.number ORDER BY last_block LIMIT 1) x
            WHERE x.first_block <= ${b}.number),
  'confirmation', (SELECT json_build_object('tx', '0x' || encode(c.tx_hash, 'hex'), 'parent_block', c.parent_block, 'parent_timestamp', c.parent_timestamp)
                   FROM arbitrum_confirmations c WHERE c.chain_id = ${b}.chain_id AND c.last_block >= ${b}.number
                   ORDER BY c.last_block, c.parent_block LIMIT 1),
  'sealed', (SELECT s.batch_number FROM (SELECT * FROM arbitrum_sealed_batches WHERE chain_id = ${b}.chain_id AND last_block >= ${b}.number
                                         ORDER BY last_block LIMIT 1) s WHERE s.first_block <= ${b}.number),
  'safe_block', p.safe_block)
  FROM arbitrum_parent p WHERE p.chain_id = ${b}.chain_id) END`;

export type SettlementStatus = 'Processed on rollup' | 'Sealed on rollup' | 'Sent to base' | 'Confirmed on base';

/** The order: a confirmation, else a commitment, else a known batch number. */
export function settlementStatus(s: { batchNumber: number | null; commitment: { hash: string | null }; confirmation: { hash: string | null } }): SettlementStatus {
  if (s.confirmation.hash !== null) return 'Confirmed on base';
  if (s.commitment.hash !== null) return 'Sent to base';
  if (s.batchNumber !== null) return 'Sealed on rollup';
  return 'Processed on rollup';
}

/** A parent transaction: final once the parent's safe block has reached its block. */
export function parentTransaction(
  tx: { tx: string; parent_block: number; parent_timestamp: number } | null,
  safeBlock: number | null,
): Static<typeof ParentChainTransaction> {
  // the reference sends the object with null members when there is no such transaction
  if (tx === null) return { hash: null, status: null, timestamp: null };
  return {
    hash: tx.tx,
    status: safeBlock !== null && safeBlock >= tx.parent_block ? 'finalized' : 'unfinalized',
    timestamp: isoTimestamp(BigInt(tx.parent_timestamp)),
  };
}
