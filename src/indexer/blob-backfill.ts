/**
 * Blocks indexed before the EIP-4844 fields existed (migration 010) are read again from the node
 * by hash, with their transactions (for the type-3 count), and the three fields filled: an
 * upgraded index needs no re-index. Consensus blocks only, newest first; a block the node no
 * longer has (reorged out meanwhile) is passed over and keeps null. New blocks are written with
 * the fields, so once the pass reaches the bottom it is over for this process.
 */
import type { RpcClient } from '../rpc/client.js';
import type { Database } from '../db/client.js';
import type { RpcBlock } from '../rpc/types.js';
import { blockHeaderFields } from '../evm/block-row.js';
import { blocksWithoutBlobFields, saveBlobFields, type BlobFields } from '../db/queries/blob-backfill.js';

const BLOCKS_PER_ROUND = 50;

export class BlobFieldsBackfill {
  private below: bigint | null = null;
  private finished = false;

  constructor(
    private readonly db: Database,
    private readonly rpc: RpcClient,
    private readonly chainId: number,
  ) {}

  /** One round; returns how many blocks it filled (0 when there is nothing left to do). */
  async step(): Promise<number> {
    if (this.finished) return 0;
    const pending = await blocksWithoutBlobFields(this.db, this.chainId, this.below, BLOCKS_PER_ROUND);
    if (pending.length === 0) {
      this.finished = true;
      return 0;
    }
    // concurrent calls travel as one JSON-RPC batch
    const fetched = await Promise.all(pending.map((b) => this.rpc.request<RpcBlock | null>('eth_getBlockByHash', [b.hash, true])));
    const rows: BlobFields[] = [];
    for (const block of fetched) {
      if (block === null) continue;
      const header = blockHeaderFields(block);
      if (header.blobTransactionsCount === null) continue;
      rows.push({ hash: header.hash, blobGasUsed: header.blobGasUsed, excessBlobGas: header.excessBlobGas, blobTransactionsCount: header.blobTransactionsCount });
    }
    await saveBlobFields(this.db, this.chainId, rows);
    this.below = pending[pending.length - 1]!.number;
    return pending.length;
  }
}
