import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { toBytea } from '../hex.js';
import { PAGE_FILTER } from './holders.js';

/**
 * A token's supply as the sum of its holders' balances: what `totalSupply()` returns for a
 * token that mints from and burns to the zero address (tokens sent to it count as burnt).
 * Summed at read time from token_balances_page (an index-only range scan over the token's
 * holders) rather than read from tokens.total_supply, which holds the contract's answer when
 * its metadata was read and is not kept in step with later mints and burns.
 */
export async function heldSupply(db: Queryable, chainId: number, token: Hex): Promise<bigint> {
  const rows = await db.query<{ supply: string }>(
    `SELECT coalesce(sum(b.value), 0)::text AS supply FROM token_balances b WHERE ${PAGE_FILTER}`,
    [chainId, toBytea(token)],
    { prepare: true },
  );
  return BigInt(rows[0]!.supply);
}
