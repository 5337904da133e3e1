import type { Queryable } from '../client.js';
import type { Hex, TokenType } from '../rows.js';
import { fromHexText, toBytea } from '../hex.js';
import { orderedHoldersAtSql, pageFilter, type OrderedStretch } from './holder-rows.js';
import { servedSupplySql } from './token-supply.js';
import { addressLateralJoin, addressSelectColumns, readAddress, type AddressInfo, type AddressRowColumns } from './address-columns.js';

/** Strictly-after position in (value DESC, holder DESC, token_id DESC) order. */
export interface HoldersCursor {
  value: bigint;
  holder: Hex;
  /** only for ERC-1155, where (value, holder) is not unique */
  tokenId?: bigint | undefined;
}

export interface HolderItem {
  address: AddressInfo;
  tokenId: bigint | null;
  value: bigint;
}

export interface TokenSummary {
  type: TokenType;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  holderCount: bigint;
  totalSupply: bigint | null;
  /** its transfers since indexing began at genesis; null when not known (migration 032) */
  transfersCount: bigint | null;
}

export async function findToken(db: Queryable, chainId: number, token: Hex): Promise<TokenSummary | null> {
  const rows = await db.query<{
    type: TokenType;
    name: string | null;
    symbol: string | null;
    decimals: number | null;
    holder_count: string;
    total_supply: string | null;
    transfers_count: string | null;
  }>(
    `SELECT type, name, symbol, decimals, holder_count::text, (${servedSupplySql('tokens')})::text AS total_supply, transfers_count::text
     FROM tokens WHERE chain_id = $1 AND address = $2`,
    [chainId, toBytea(token)],
    { prepare: true },
  );
  const row = rows[0];
  if (!row) return null;
  return {
    type: row.type,
    name: row.name,
    symbol: row.symbol,
    decimals: row.decimals,
    holderCount: BigInt(row.holder_count),
    totalSupply: row.total_supply === null ? null : BigInt(row.total_supply),
    transfersCount: row.transfers_count === null ? null : BigInt(row.transfers_count),
  };
}

/** The live holders' condition on alias b (holder-rows.ts); the Etherscan-style list and the supply read it too. */
export const PAGE_FILTER = pageFilter('b');

/** Where a list's rows come from: the live balances, or the balances at a past block. */
export type HoldersSource = { kind: 'live' } | { kind: 'past'; block: bigint };

/**
 * FROM and WHERE of a stretch of a holders list over `source` ($1 chain, $2 token), the
 * cursor's condition included; a past block is appended to `args`. Either way rows come
 * through indexes in (value, holder, token_id) order; the caller orders and cuts them again.
 */
export function holdersSourceSql(source: HoldersSource | undefined, args: unknown[], stretch: OrderedStretch): { from: string; where: string } {
  if (source === undefined || source.kind === 'live') return { from: 'token_balances b', where: `${PAGE_FILTER} ${stretch.keyset('b')}` };
  args.push(source.block.toString());
  return { from: `${orderedHoldersAtSql(`$${args.length}::bigint`, stretch)} b`, where: 'true' };
}

export interface HoldersPageParams {
  chainId: number;
  token: Hex;
  after: HoldersCursor | null;
  limit: number;
  source?: HoldersSource;
  /** only the holders of this token id (an ERC-1155 instance): one range scan of token_balances_by_id */
  instance?: bigint;
}

/**
 * The page statement, exported so tests can EXPLAIN exactly what the API runs. It also reads
 * the token's type (an uncorrelated subquery, evaluated once), so a page that has rows needs
 * no second round trip to know the token exists and whether its cursor carries a token id.
 */
export function holdersPageQuery(params: HoldersPageParams) {
  const args: unknown[] = [params.chainId, toBytea(params.token), params.limit];
  let instance = (_alias: string) => '';
  if (params.instance !== undefined) {
    const at = args.push(params.instance.toString());
    instance = (a) => `AND ${a}.token_id = $${at}::numeric`;
  }
  let after = (_alias: string) => '';
  if (params.after) {
    const at = args.length;
    args.push(params.after.value.toString(), toBytea(params.after.holder));
    if (params.after.tokenId !== undefined) {
      args.push(params.after.tokenId.toString());
      after = (a) => `AND (${a}.value, ${a}.holder, ${a}.token_id) < ($${at + 1}::numeric, $${at + 2}::bytea, $${at + 3}::numeric)`;
    } else {
      after = (a) => `AND (${a}.value, ${a}.holder) < ($${at + 1}::numeric, $${at + 2}::bytea)`;
    }
  }
  const keyset = (a: string) => `${instance(a)} ${after(a)}`;
  const { from, where } = holdersSourceSql(params.source, args, { dir: 'DESC', keyset, rows: '$3' });
  const text = `SELECT encode(b.holder, 'hex') AS holder, b.token_id::text AS token_id, b.value::text AS value,
            (SELECT t.type FROM tokens t WHERE t.chain_id = $1 AND t.address = $2) AS token_type,
            ${addressSelectColumns}
     FROM ${from}
     ${addressLateralJoin('b.holder', '$1')}
     WHERE ${where}
     ORDER BY b.value DESC, b.holder DESC, b.token_id DESC
     LIMIT $3`;
  return { text, args };
}

export interface HoldersPage {
  /** null when the chain has no such token */
  tokenType: TokenType | null;
  holders: HolderItem[];
}

/**
 * One page of holders: a single range scan of token_balances_page from the cursor on, in
 * index order, whatever the depth (at a past block, one of each page index, merged). Only an empty page costs a second statement, to tell an
 * unknown token from a page past the end.
 */
export async function holdersPage(db: Queryable, params: HoldersPageParams): Promise<HoldersPage> {
  const { text, args } = holdersPageQuery(params);
  const rows = await db.query<{ holder: string; token_id: string | null; value: string; token_type: TokenType | null } & AddressRowColumns>(
    text,
    args,
    // the generic plans are held by test/api/explain.test.ts
    { prepare: true, genericPlan: true },
  );
  const first = rows[0];
  // Balances are written with their token's row in one transaction, so a row without a
  // token type does not happen; treating it as unknown keeps the 404 exact if it ever did.
  const tokenType = first ? first.token_type : ((await findToken(db, params.chainId, params.token))?.type ?? null);
  return {
    tokenType,
    holders: rows.map((row) => ({
      address: readAddress(fromHexText(row.holder), row),
      tokenId: row.token_id === null ? null : BigInt(row.token_id),
      value: BigInt(row.value),
    })),
  };
}
