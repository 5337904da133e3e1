import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { hexArray } from '../hex.js';
import { blockTableColumns, upsertUnclesStatement, type BlockRow } from '../model/block.js';
import { upsertParams } from '../model/columns.js';
import { withPageJson } from './write-blocks.js';

/** Writes uncle rows (non-consensus, header only) in one statement; see upsertUnclesStatement. */
export async function upsertUncles(db: Queryable, uncles: readonly BlockRow[]): Promise<void> {
  if (uncles.length === 0) return;
  await db.query(upsertUnclesStatement, upsertParams(blockTableColumns, withPageJson(uncles)));
}

/**
 * The uncles of blocks just orphaned go with them: a row known only as an uncle's header is
 * deleted, a block of our own (an earlier orphan) is an orphan again. An uncle that a consensus
 * block still includes stays; the protocol lets a block include uncles up to 6 heights back
 * (7 is allowed as margin, as in the mined-blocks query), which bounds the search.
 */
export async function releaseUncles(db: Queryable, chainId: number, uncleHashes: readonly Hex[]): Promise<void> {
  if (uncleHashes.length === 0) return;
  const released = `WITH r AS (
       SELECT u.hash FROM blocks u
       WHERE u.chain_id = $1 AND u.hash = ANY(SELECT decode(x, 'hex') FROM unnest($2::text[]) x) AND u.is_uncle AND NOT u.consensus
         AND NOT EXISTS (SELECT 1 FROM blocks inc
                         WHERE inc.chain_id = $1 AND inc.consensus AND inc.number BETWEEN u.number + 1 AND u.number + 7
                           AND inc.uncle_hashes @> jsonb_build_array('0x' || encode(u.hash, 'hex'))))`;
  const params = [chainId, hexArray(uncleHashes)];
  await db.query(`${released} DELETE FROM blocks b USING r WHERE b.chain_id = $1 AND b.hash = r.hash AND b.header_only`, params);
  await db.query(`${released} UPDATE blocks b SET is_uncle = false FROM r WHERE b.chain_id = $1 AND b.hash = r.hash`, params);
}
