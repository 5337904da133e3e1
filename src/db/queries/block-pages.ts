import type { Queryable } from '../client.js';
import { hexArray } from '../hex.js';
import { blockColumns } from '../model/block.js';
import { readRow, selectList } from '../model/columns.js';
import { storedPageJson } from './write-blocks.js';

/**
 * Renders the page part (`page_json`, model/block.ts) of up to `limit` blocks that have none:
 * those written before migration 021 and those whose fields a later pass changed
 * (blob-backfill.ts), newest first (blocks_page_json_pending). Returns how many it read; 0 when
 * none is left. A block the pipeline wrote again meanwhile carries its own rendering and keeps it.
 */
export async function renderPendingBlockPages(db: Queryable, chainId: number, limit: number): Promise<number> {
  const rows = await db.query<Record<string, unknown>>(
    `SELECT ${selectList(blockColumns, 'b')} FROM blocks b
     WHERE b.chain_id = $1 AND b.page_json IS NULL ORDER BY b.number DESC LIMIT $2`,
    [chainId, limit],
  );
  if (rows.length === 0) return 0;
  const blocks = rows.map((r) => readRow(blockColumns, r));
  await db.query(
    `UPDATE blocks b SET page_json = u.page_json
     FROM unnest($2::text[], $3::text[]) AS u(hash, page_json)
     WHERE b.chain_id = $1 AND b.hash = decode(u.hash, 'hex') AND b.page_json IS NULL`,
    [chainId, hexArray(blocks.map((b) => b.hash)), blocks.map(storedPageJson)],
  );
  return rows.length;
}
