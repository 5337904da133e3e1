import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { fromHexText, toBytea } from '../hex.js';
import { PAGE_FILTER } from './holders.js';

export interface HolderBalance {
  holder: Hex;
  value: bigint;
}

/**
 * Rows `offset` … `offset + limit` of the holders list in the keyset endpoint's order. OFFSET
 * walks the skipped rows of the index, so callers cap offset + limit (the Etherscan-style
 * API allows 10,000).
 */
export async function holdersWindow(
  db: Queryable,
  params: { chainId: number; token: Hex; offset: number; limit: number },
): Promise<HolderBalance[]> {
  const rows = await db.query<{ holder: string; value: string }>(
    `SELECT encode(b.holder, 'hex') AS holder, b.value::text AS value
     FROM token_balances b
     WHERE ${PAGE_FILTER}
     ORDER BY b.value DESC, b.holder DESC, b.token_id DESC
     LIMIT $3 OFFSET $4`,
    [params.chainId, toBytea(params.token), params.limit, params.offset],
  );
  return rows.map((r) => ({ holder: fromHexText(r.holder), value: BigInt(r.value) }));
}
