import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { fromHexText, toBytea } from '../hex.js';
import { heldSql } from './holder-rows.js';
import { hiddenArg, notHiddenSql } from './hidden-tokens.js';

/** One token an address holds, with the token's metadata. */
export interface Holding {
  token: Hex;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  /** base units (ERC-20) or the number of NFTs of the collection (ERC-721) */
  value: bigint;
}

export interface HoldingsParams {
  chainId: number;
  holder: Hex;
  type: 'ERC-20' | 'ERC-721';
  offset: number;
  limit: number;
  /** by token address */
  sort: 'asc' | 'desc';
  /** tokens left out (the restricted ones, unless the request may see them) */
  hidden?: readonly Hex[];
}

/**
 * The tokens of one type an address holds, by token address: one range scan of
 * token_balances_by_holder (migration 017: the holder's positive balances in token order),
 * each row's token read with one primary-key probe for its type and metadata. Rows of the
 * other types are passed over in the scan, so a page costs the holder's own rows up to it,
 * never a sort. ERC-20 and ERC-721 balances have no token id; the zero address holds nothing
 * (mints come from it, burns go to it). Exported so tests can EXPLAIN what the API runs.
 */
export function holdingsQuery(params: HoldingsParams) {
  const dir = params.sort === 'asc' ? 'ASC' : 'DESC';
  // The token is a LATERAL probe with LIMIT 1, which the planner cannot turn into a join
  // that reads the tokens table whole (a hash join over every token of the chain).
  const text = `SELECT encode(b.token, 'hex') AS token, b.value::text AS value, t.name, t.symbol, t.decimals
     FROM token_balances b
     CROSS JOIN LATERAL (SELECT t.name, t.symbol, t.decimals FROM tokens t
                         WHERE t.chain_id = b.chain_id AND t.address = b.token AND t.type = $3 LIMIT 1) t
     WHERE b.chain_id = $1 AND b.holder = $2 AND ${heldSql('b')} AND b.token_id IS NULL
       AND ${notHiddenSql('b.token', '$6')}
     ORDER BY b.token ${dir}
     LIMIT $4 OFFSET $5`;
  return { text, args: [params.chainId, toBytea(params.holder), params.type, params.limit, params.offset, hiddenArg(params.hidden)] };
}

export async function holdingsWindow(db: Queryable, params: HoldingsParams): Promise<Holding[]> {
  const { text, args } = holdingsQuery(params);
  const rows = await db.query<{ token: string; value: string; name: string | null; symbol: string | null; decimals: number | null }>(text, args, {
    prepare: true,
  });
  return rows.map((r) => ({ token: fromHexText(r.token), name: r.name, symbol: r.symbol, decimals: r.decimals, value: BigInt(r.value) }));
}
