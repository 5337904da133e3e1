import type { Queryable } from '../client.js';
import { addressesWithChecksums, REBUILD_ADDRESS_TAGS } from '../queries/write-addresses.js';
import type { Hex } from '../rows.js';

// Migration 020 rendered the tags kept before it with `"address_hash":null` in each public tag,
// since SQL cannot checksum an address, and pages filled it in per request: a scan of every
// tagged row's JSON on every page (16 us of a 50-row page, measured). Those rows are rendered
// again here by the tag writer's own statement, with the checksums computed in JS, so the
// stored JSON is always final and pages splice it as it is.
export const sql = '';

const CHUNK = 5_000;

export async function after(tx: Queryable, chunk = CHUNK): Promise<void> {
  // in key order, a chunk at a time: one pass over addresses, and memory bounded by the chunk
  let after: { chainId: string; hash: string } = { chainId: '-1', hash: '' };
  for (;;) {
    const rows = await tx.query<{ chain_id: string; hash: string }>(
      `SELECT chain_id::text AS chain_id, encode(hash, 'hex') AS hash FROM addresses
       WHERE (chain_id, hash) > ($1::bigint, decode($2, 'hex')) AND tags_json LIKE '%"address_hash":null%'
       ORDER BY chain_id, hash LIMIT ${chunk}`,
      [after.chainId, after.hash],
    );
    if (rows.length === 0) return;
    await tx.query(REBUILD_ADDRESS_TAGS, addressesWithChecksums(rows.map((r) => ({ chainId: Number(r.chain_id), address: `0x${r.hash}` as Hex }))));
    const last = rows[rows.length - 1]!;
    after = { chainId: last.chain_id, hash: last.hash };
  }
}
