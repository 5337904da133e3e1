import type { Queryable } from '../client.js';
import { blockColumns, upsertBlocksStatement, type BlockRow } from '../model/block.js';
import { upsertParams } from '../model/columns.js';

/**
 * Inserts (or replaces, by hash) blocks in one statement. A block re-seen after a reorg
 * is written again with its new consensus flag.
 */
export async function upsertBlocks(db: Queryable, blocks: readonly BlockRow[]): Promise<void> {
  if (blocks.length === 0) return;
  await db.query(upsertBlocksStatement, upsertParams(blockColumns, blocks));
}
