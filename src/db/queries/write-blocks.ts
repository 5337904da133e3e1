import type { Queryable } from '../client.js';
import { blockTableColumns, upsertBlocksStatement, type BlockRow, type BlockTableRow } from '../model/block.js';
import { upsertParams } from '../model/columns.js';
import type { PageBlock } from './blocks.js';
// the page's rendering is the API view's own code, so what is stored is what the view makes
import { blockPageJson } from '../../api/views/block-page-json.js';

/**
 * The longest rendering kept. blocks_validated_page holds page_json, and a B-tree entry holds at
 * most 2,704 bytes: with the key, the other included columns and a kind's chain_fields (Arbitrum's
 * ~200 bytes) a block's entry stays below that. A rendering is ~1 KB; one with dozens of reward
 * entries would not fit, and the write would fail.
 */
const PAGE_JSON_MAX = 2_000;

/** page_json of a block too large to keep rendered: its pages read the full rows (db/queries/blocks.ts). */
export const NOT_RENDERED = '';

/** What `page_json` keeps for a block (model/block.ts): its rendering, or NOT_RENDERED. */
export function storedPageJson(block: PageBlock): string {
  const json = blockPageJson(block);
  return json.length <= PAGE_JSON_MAX ? json : NOT_RENDERED;
}

/** The table rows of blocks: each with its page rendering (`page_json`, model/block.ts). */
export function withPageJson(blocks: readonly BlockRow[]): BlockTableRow[] {
  return blocks.map((b) => ({ ...b, pageJson: storedPageJson(b) }));
}

/**
 * Inserts (or replaces, by hash) blocks in one statement. A block re-seen after a reorg
 * is written again with its new consensus flag.
 */
export async function upsertBlocks(db: Queryable, blocks: readonly BlockRow[]): Promise<void> {
  if (blocks.length === 0) return;
  await db.query(upsertBlocksStatement, upsertParams(blockTableColumns, withPageJson(blocks)));
}
