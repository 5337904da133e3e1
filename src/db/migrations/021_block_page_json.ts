// A blocks-validated page read 51 wide rows scattered over the heap (a miner's blocks are far
// apart), plus the columns the view turned into JSON on every request. What a stored block row
// fixes of its block object is now rendered when the block is written (blocks.page_json,
// api/views/block-page-json.ts), and blocks_validated_page holds it with the few columns a page
// adds per request, in the page's order: a page is an index-only scan of adjacent entries.
// blocks_by_miner stays as it is for what counts a miner's blocks (index-only over narrow
// entries). Blocks written before this migration have no rendering until the indexer's backfill
// writes it (the enrichment loop, db/queries/block-pages.ts, blocks_page_json_pending); a page meeting one reads
// the full rows instead, as before.
export const sql = /* sql */ `
ALTER TABLE blocks ADD COLUMN page_json text;
CREATE INDEX blocks_validated_page ON blocks (chain_id, miner, number DESC)
  INCLUDE (consensus, is_uncle, gas_used, gas_limit, chain_fields, page_json);
CREATE INDEX blocks_page_json_pending ON blocks (chain_id, number DESC) WHERE page_json IS NULL;
`;
