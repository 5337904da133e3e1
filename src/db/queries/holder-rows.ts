import { ZERO_ADDRESS_BYTEA } from '../hex.js';

/**
 * Which balance rows are a token's holders, now or at a past block ($1 chain, $2 token): one
 * definition for the lists, the counts and the supply.
 *
 * At a past block N a balance's value is its live row when that was set at or before N, else
 * the interval of balance_intervals that spans N (migration 023); a balance with neither held
 * nothing at N.
 */

/**
 * A balance row that counts as holding its token: positive, never the zero address (it "holds"
 * what was minted from it). It repeats token_balances_page's predicate, so the planner can use
 * that partial index. Every list, count and supply of holders, and an address's holdings, read it.
 */
export const heldSql = (alias: string) => `${alias}.value > 0 AND ${alias}.holder <> ${ZERO_ADDRESS_BYTEA}`;

/** The live holders of token $2 on chain $1. */
export const pageFilter = (alias: string) => `${alias}.chain_id = $1 AND ${alias}.token = $2 AND ${heldSql(alias)}`;

const liveAt = (alias: string, block: string) => `${pageFilter(alias)} AND ${alias}.block_number <= ${block}`;
// (intervals are positive and never the zero address: the balance write keeps no others)
const intervalAt = (alias: string, block: string) =>
  `${alias}.chain_id = $1 AND ${alias}.token = $2 AND ${alias}.from_block <= ${block} AND ${alias}.to_block > ${block}`;

/** FROM of the holders at `block` (the SQL holding N), unordered: for counts and sums. */
export function holdersAtSql(block: string): string {
  return `(SELECT l.holder, l.token_id, l.value FROM token_balances l WHERE ${liveAt('l', block)}
           UNION ALL
           SELECT i.holder, i.token_id, i.value FROM balance_intervals i WHERE ${intervalAt('i', block)})`;
}

/** A stretch of a holders list in (value, holder, token_id) order. */
export interface OrderedStretch {
  dir: 'ASC' | 'DESC';
  /** the cursor's condition on a row of `alias` (starting with AND), or '' */
  keyset: (alias: string) => string;
  /** how many rows each source must give: the page, and any offset before it */
  rows: string;
}

/**
 * FROM of a stretch of the holders at `block`: each source ordered and cut by its own page
 * index, so the outer ORDER BY merges two short lists. (PostgreSQL does not merge the two
 * index scans of a UNION ALL whose arms have WHERE clauses by itself: each arm would be read
 * whole and sorted.)
 */
export function orderedHoldersAtSql(block: string, s: OrderedStretch): string {
  const order = (a: string) => `ORDER BY ${a}.value ${s.dir}, ${a}.holder ${s.dir}, ${a}.token_id ${s.dir} LIMIT ${s.rows}`;
  return `((SELECT l.holder, l.token_id, l.value FROM token_balances l WHERE ${liveAt('l', block)} ${s.keyset('l')} ${order('l')})
           UNION ALL
           (SELECT i.holder, i.token_id, i.value FROM balance_intervals i WHERE ${intervalAt('i', block)} ${s.keyset('i')} ${order('i')}))`;
}
