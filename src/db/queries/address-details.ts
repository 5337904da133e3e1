import type { Queryable } from '../client.js';
import type { Hex, TokenType } from '../rows.js';
import { toBytea } from '../hex.js';
import { heldSql } from './holder-rows.js';
import { hiddenArg, notHiddenSql } from './hidden-tokens.js';
import { addressLateralJoin, addressSelectColumns, readAddress, type AddressInfo, type AddressRowColumns } from './address-columns.js';
import type { TokenSummary } from './holders.js';
import { servedSupplySql } from './token-supply.js';

/** The reference's tab counters stop at this many: its UI shows "50+" above 50. */
export const TAB_COUNT_LIMIT = 51;

/** What the address page shows of an address beyond the address object. */
export interface AddressDetails {
  address: AddressInfo;
  /** it mined a block we hold (any consensus, as blocks-validated lists them) */
  hasValidatedBlocks: boolean;
  /** it holds a positive balance of a token we index */
  hasTokens: boolean;
  /** the token at this address, if it is one we index */
  token: Omit<TokenSummary, 'transfersCount'> | null;
}

/**
 * The rows of token_balances_by_holder by which address $2 holds a token on chain $1 (heldSql),
 * less the tokens the request may not see (`hidden` in parameter `hiddenParam`).
 */
const held = (alias: string, hiddenParam: string) =>
  `${alias}.chain_id = $1 AND ${alias}.holder = $2 AND ${heldSql(alias)} AND ${notHiddenSql(`${alias}.token`, hiddenParam)}`;

/**
 * One statement, each part one index probe: the address row (primary key, the same LATERAL
 * join every page uses), a block it mined (blocks_by_miner), a positive balance it holds
 * (token_balances_by_holder), the token at the address (primary key).
 */
const DETAILS = /* sql */ `
  SELECT ${addressSelectColumns},
    EXISTS (SELECT 1 FROM blocks b WHERE b.chain_id = $1 AND b.miner = $2) AS has_validated_blocks,
    EXISTS (SELECT 1 FROM token_balances h WHERE ${held('h', '$3')}) AS has_tokens,
    t.type AS t_type, t.name AS t_name, t.symbol AS t_symbol, t.decimals AS t_decimals,
    t.holder_count::text AS t_holder_count, (${servedSupplySql('t')})::text AS t_total_supply
  FROM (SELECT 1) one
  ${addressLateralJoin('$2', '$1')}
  LEFT JOIN tokens t ON t.chain_id = $1 AND t.address = $2`;

interface DetailsRow extends AddressRowColumns {
  has_validated_blocks: boolean;
  has_tokens: boolean;
  t_type: TokenType | null;
  t_name: string | null;
  t_symbol: string | null;
  t_decimals: number | null;
  t_holder_count: string | null;
  t_total_supply: string | null;
}

export async function addressDetails(db: Queryable, chainId: number, hash: Hex, hidden: readonly Hex[]): Promise<AddressDetails> {
  const rows = await db.query<DetailsRow>(DETAILS, [chainId, toBytea(hash), hiddenArg(hidden)], { prepare: true });
  const r = rows[0]!;
  return {
    address: readAddress(hash, r),
    hasValidatedBlocks: r.has_validated_blocks,
    hasTokens: r.has_tokens,
    token:
      r.t_type === null
        ? null
        : {
            type: r.t_type,
            name: r.t_name,
            symbol: r.t_symbol,
            decimals: r.t_decimals,
            holderCount: BigInt(r.t_holder_count ?? '0'),
            totalSupply: r.t_total_supply === null ? null : BigInt(r.t_total_supply),
          },
  };
}

/**
 * The address page's tab counts, each cut at TAB_COUNT_LIMIT as the reference cuts them: two
 * index range scans of at most that many entries, whatever the address's history (a hidden
 * token's row is passed over in the scan).
 */
export async function addressTabCounts(
  db: Queryable,
  chainId: number,
  hash: Hex,
  hidden: readonly Hex[],
): Promise<{ validations: number; tokenBalances: number }> {
  const rows = await db.query<{ validations: number; token_balances: number }>(
    `SELECT
       (SELECT count(*)::int FROM (SELECT 1 FROM blocks b WHERE b.chain_id = $1 AND b.miner = $2 LIMIT $3) v) AS validations,
       (SELECT count(*)::int FROM (SELECT 1 FROM token_balances h WHERE ${held('h', '$4')} LIMIT $3) h) AS token_balances`,
    [chainId, toBytea(hash), TAB_COUNT_LIMIT, hiddenArg(hidden)],
    { prepare: true },
  );
  return { validations: rows[0]!.validations, tokenBalances: rows[0]!.token_balances };
}

/**
 * Every block the address mined that we hold (the rows blocks-validated pages through): an
 * index-only count over its blocks_by_miner range.
 */
export async function validationsCount(db: Queryable, chainId: number, hash: Hex): Promise<bigint> {
  const rows = await db.query<{ n: string }>(
    'SELECT count(*)::text AS n FROM blocks b WHERE b.chain_id = $1 AND b.miner = $2',
    [chainId, toBytea(hash)],
    { prepare: true },
  );
  return BigInt(rows[0]!.n);
}
