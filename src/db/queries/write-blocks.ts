import type { Queryable } from '../client.js';
import { blockTableColumns, upsertBlocksStatement, type BlockRow, type BlockTableRow } from '../model/block.js';
import { upsertParams } from '../model/columns.js';
// the page's rendering is the API view's own code, so what is stored is what the view makes
import { blockPageJson } from '../../api/views/block-page-json.js';

/** The table rows of blocks: each with its page rendering (`page_json`, model/block.ts). */
export function withPageJson(blocks: readonly BlockRow[]): BlockTableRow[] {
  return blocks.map((b) => ({ ...b, pageJson: blockPageJson(b) }));
}

/**
 * Inserts (or replaces, by hash) blocks in one statement. A block re-seen after a reorg
 * is written again with its new consensus flag.
 */
export async function upsertBlocks(db: Queryable, blocks: readonly BlockRow[]): Promise<void> {
  if (blocks.length === 0) return;
  await db.query(upsertBlocksStatement, upsertParams(blockTableColumns, withPageJson(blocks)));
}
