import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { toBytea } from '../hex.js';
import { heldSql } from './holder-rows.js';

/**
 * What `balanceOf(holder)` of the token returns, from our balances: the ERC-20 amount or the
 * number of ERC-721 tokens held (rows without a token id; ERC-1155 has no one-argument
 * balanceOf). 0 for anything we hold no positive balance for, the zero address included.
 */
export async function tokenBalance(db: Queryable, chainId: number, token: Hex, holder: Hex): Promise<bigint> {
  const rows = await db.query<{ value: string }>(
    `SELECT b.value::text AS value FROM token_balances b
     WHERE b.chain_id = $1 AND b.token = $2 AND b.holder = $3 AND b.token_id IS NULL AND ${heldSql('b')}`,
    [chainId, toBytea(token), toBytea(holder)],
    { prepare: true },
  );
  return rows[0] ? BigInt(rows[0].value) : 0n;
}
