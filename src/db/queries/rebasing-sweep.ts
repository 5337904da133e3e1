import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { fromHexText, hexArray, toBytea } from '../hex.js';

/**
 * Where the rolling sweep over rebasing tokens' holders stands: the next batch reads the rows
 * after (`token`, `holder`) — from the token's first row when `holder` is null — and it is batch
 * `batch` (from 0) of a pass that reads `slice` rows per batch. Kept in `chains.rebasing_sweep`,
 * written in the same transaction as the batch whose reads it records.
 */
export interface SweepPosition {
  token: Hex;
  holder: Hex | null;
  batch: number;
  slice: number;
}

export async function sweepPosition(db: Queryable, chainId: number): Promise<SweepPosition | null> {
  const rows = await db.query<{ sweep: SweepPosition | string | null }>('SELECT rebasing_sweep AS sweep FROM chains WHERE chain_id = $1', [chainId]);
  const sweep = rows[0]?.sweep ?? null;
  return typeof sweep === 'string' ? (JSON.parse(sweep) as SweepPosition) : sweep;
}

export async function setSweepPosition(db: Queryable, chainId: number, position: SweepPosition | null): Promise<void> {
  await db.query('UPDATE chains SET rebasing_sweep = $2::jsonb WHERE chain_id = $1', [chainId, position === null ? null : JSON.stringify(position)]);
}

/** Balance rows (fungible: no token id) of these tokens: the size of a sweep pass. */
export async function fungibleRowCount(db: Queryable, chainId: number, tokens: readonly Hex[]): Promise<number> {
  if (tokens.length === 0) return 0;
  const rows = await db.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM token_balances
     WHERE chain_id = $1 AND token = ANY(SELECT decode(x, 'hex') FROM unnest($2::text[]) x) AND token_id IS NULL`,
    [chainId, hexArray(tokens)],
  );
  return Number(rows[0]!.n);
}

/** Up to `limit` holders of `token` after `after` (from the first when null), in byte order: one range scan of the balance key. */
export async function holdersAfter(db: Queryable, chainId: number, token: Hex, after: Hex | null, limit: number | null): Promise<Hex[]> {
  const rows = await db.query<{ holder: string }>(
    `SELECT encode(holder, 'hex') AS holder FROM token_balances
     WHERE chain_id = $1 AND token = $2 AND token_id IS NULL AND ($3::bytea IS NULL OR holder > $3::bytea)
     ORDER BY token_balances.holder LIMIT $4`,
    [chainId, toBytea(token), after === null ? null : toBytea(after), limit],
  );
  return rows.map((r) => fromHexText(r.holder));
}
