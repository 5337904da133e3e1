import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { fromHexText, hexArray } from '../hex.js';

/**
 * Consensus blocks stored before migration 010 (no EIP-4844 fields yet), newest first below
 * `below`: a range scan of the partial index blocks_blob_backfill, empty once they are filled.
 */
export async function blocksWithoutBlobFields(
  db: Queryable,
  chainId: number,
  below: bigint | null,
  limit: number,
): Promise<Array<{ hash: Hex; number: bigint }>> {
  const rows = await db.query<{ hash: string; number: string }>(
    `SELECT encode(hash, 'hex') AS hash, number::text AS number FROM blocks
     WHERE chain_id = $1 AND blob_transactions_count IS NULL AND consensus AND ($2::bigint IS NULL OR number < $2::bigint)
     ORDER BY blocks.number DESC LIMIT $3`,
    [chainId, below === null ? null : below.toString(), limit],
  );
  return rows.map((r) => ({ hash: fromHexText(r.hash), number: BigInt(r.number) }));
}

export interface BlobFields {
  hash: Hex;
  blobGasUsed: bigint | null;
  excessBlobGas: bigint | null;
  blobTransactionsCount: number;
}

/** The fields are part of the page rendering: it is dropped, and the indexer renders it again (block-pages.ts). */
export async function saveBlobFields(db: Queryable, chainId: number, rows: readonly BlobFields[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `UPDATE blocks b SET blob_gas_used = u.blob_gas_used, excess_blob_gas = u.excess_blob_gas,
       blob_transactions_count = u.blob_transactions_count, page_json = NULL
     FROM unnest($2::text[], $3::numeric[], $4::numeric[], $5::int[]) AS u(hash, blob_gas_used, excess_blob_gas, blob_transactions_count)
     WHERE b.chain_id = $1 AND b.hash = decode(u.hash, 'hex')`,
    [
      chainId,
      hexArray(rows.map((r) => r.hash)),
      rows.map((r) => r.blobGasUsed?.toString() ?? null),
      rows.map((r) => r.excessBlobGas?.toString() ?? null),
      rows.map((r) => r.blobTransactionsCount),
    ],
  );
}
