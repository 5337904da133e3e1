import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { fromHexText, toBytea } from '../hex.js';
import { holdersSourceSql, type HoldersSource } from './holders.js';

export interface HolderBalance {
  holder: Hex;
  value: bigint;
  /** ERC-1155 only: a holder has a row per id */
  tokenId: bigint | null;
}

export interface HoldersWindowParams {
  chainId: number;
  token: Hex;
  offset: number;
  limit: number;
  /** desc: richest first (the keyset endpoint's order); asc: the reverse */
  sort: 'asc' | 'desc';
  source?: HoldersSource;
}

/**
 * Rows `offset` … `offset + limit` of the holders list: one range scan of token_balances_page,
 * forwards or backwards, that skips `offset` index entries before it returns rows (at a past
 * block, each page index gives its first `offset + limit` and the merge skips `offset`). Exported
 * so tests can EXPLAIN exactly what the API runs.
 */
export function holdersWindowQuery(params: HoldersWindowParams) {
  const dir = params.sort === 'asc' ? 'ASC' : 'DESC';
  const args: unknown[] = [params.chainId, toBytea(params.token), params.limit, params.offset];
  const { from, where } = holdersSourceSql(params.source, args, { dir, keyset: () => '', rows: '($3::bigint + $4::bigint)' });
  const text = `SELECT encode(b.holder, 'hex') AS holder, b.value::text AS value, b.token_id::text AS token_id
     FROM ${from}
     WHERE ${where}
     ORDER BY b.value ${dir}, b.holder ${dir}, b.token_id ${dir}
     LIMIT $3 OFFSET $4`;
  return { text, args };
}

export async function holdersWindow(db: Queryable, params: HoldersWindowParams): Promise<HolderBalance[]> {
  const { text, args } = holdersWindowQuery(params);
  const rows = await db.query<{ holder: string; value: string; token_id: string | null }>(text, args, { prepare: true });
  return rows.map((r) => ({ holder: fromHexText(r.holder), value: BigInt(r.value), tokenId: r.token_id === null ? null : BigInt(r.token_id) }));
}
