import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { toBytea } from '../hex.js';

/**
 * A token's supply as the sum of its holders' positive balances, the zero address left out:
 * what `totalSupply()` returns for a token that mints from and burns to the zero address
 * (tokens sent to it count as burnt). Kept by the balance writes in `tokens.held_supply`
 * (migration 025), so reading it is one probe; 0 for a token the index does not know.
 */
export async function heldSupply(db: Queryable, chainId: number, token: Hex): Promise<bigint> {
  const rows = await db.query<{ supply: string }>(
    'SELECT held_supply::text AS supply FROM tokens WHERE chain_id = $1 AND address = $2',
    [chainId, toBytea(token)],
    { prepare: true },
  );
  return BigInt(rows[0]?.supply ?? '0');
}

/**
 * The token object's `total_supply` as SQL over tokens row `t`: the held supply, kept in step
 * with every mint and burn indexed, where the contract reports a supply at all (its metadata's
 * answer, `total_supply`, is only asked once); null where it does not.
 */
export const servedSupplySql = (t: string) => `CASE WHEN ${t}.total_supply IS NULL THEN NULL ELSE ${t}.held_supply END`;
