import type { Queryable } from '../client.js';
import type { BalanceRow, TokenRow } from '../rows.js';
import { hexArray } from '../hex.js';
import { heldSql } from './holder-rows.js';
import { closeIntervals, SET_ABSOLUTE } from './write-history.js';

/** Inserts tokens; metadata already known is kept when a later lookup returns nothing. */
export async function upsertTokens(db: Queryable, tokens: readonly TokenRow[]): Promise<void> {
  if (tokens.length === 0) return;
  await db.query(
    `INSERT INTO tokens (chain_id, address, type, name, symbol, decimals, total_supply)
     SELECT u.chain_id, decode(u.address, 'hex'), u.type, u.name, u.symbol, u.decimals, u.total_supply
     FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::numeric[])
       AS u(chain_id, address, type, name, symbol, decimals, total_supply)
     ON CONFLICT (chain_id, address) DO UPDATE SET
       name = coalesce(excluded.name, tokens.name), symbol = coalesce(excluded.symbol, tokens.symbol),
       decimals = coalesce(excluded.decimals, tokens.decimals),
       total_supply = coalesce(excluded.total_supply, tokens.total_supply)`,
    [
      tokens.map((t) => t.chainId),
      hexArray(tokens.map((t) => t.address)),
      tokens.map((t) => t.type),
      tokens.map((t) => t.name),
      tokens.map((t) => t.symbol),
      tokens.map((t) => t.decimals),
      tokens.map((t) => (t.totalSupply === null ? null : t.totalSupply.toString())),
    ],
  );
}

/** Sets absolute balances (seeding, reconciliation with balanceOf); holder counts follow. */
export async function putBalances(db: Queryable, balances: readonly BalanceRow[]): Promise<void> {
  if (balances.length === 0) return;
  // (seeding and deep-reorg resets: one chain per call, as every caller writes)
  await closeIntervals(db, balances[0]!.chainId, balances);
  await db.query(
    `INSERT INTO token_balances AS b (chain_id, token, holder, token_id, value, block_number)
     SELECT u.chain_id, decode(u.token, 'hex'), decode(u.holder, 'hex'), u.token_id, u.value, u.block_number
     FROM unnest($1::bigint[], $2::text[], $3::text[], $4::numeric[], $5::numeric[], $6::bigint[])
       AS u(chain_id, token, holder, token_id, value, block_number)
     ON CONFLICT ON CONSTRAINT token_balances_key DO UPDATE SET ${SET_ABSOLUTE}`,
    [
      balances.map((b) => b.chainId),
      hexArray(balances.map((b) => b.token)),
      hexArray(balances.map((b) => b.holder)),
      balances.map((b) => (b.tokenId === null ? null : b.tokenId.toString())),
      balances.map((b) => b.value.toString()),
      balances.map((b) => b.blockNumber.toString()),
    ],
  );
  await refreshHolderCounts(db, balances[0]!.chainId, [...new Set(balances.map((b) => b.token))]);
}

/**
 * Holder count = distinct addresses with a positive balance (ERC-1155 ids counted once), and
 * held supply = the sum of those balances (migration 025), read again from the balances.
 */
export async function refreshHolderCounts(db: Queryable, chainId: number, tokens: readonly string[]): Promise<void> {
  if (tokens.length === 0) return;
  await db.query(
    `UPDATE tokens t SET (holder_count, held_supply) = (
       SELECT count(DISTINCT b.holder), coalesce(sum(b.value), 0) FROM token_balances b
       WHERE b.chain_id = t.chain_id AND b.token = t.address AND ${heldSql('b')})
     WHERE t.chain_id = $1 AND t.address = ANY(SELECT decode(x, 'hex') FROM unnest($2::text[]) x)`,
    [chainId, hexArray(tokens)],
  );
}

/** Tokens whose name, symbol and decimals have not been asked for yet. */
export async function tokensWithoutMetadata(db: Queryable, chainId: number, limit: number): Promise<string[]> {
  const rows = await db.query<{ address: string }>(
    "SELECT '0x' || encode(address, 'hex') AS address FROM tokens WHERE chain_id = $1 AND NOT metadata_fetched LIMIT $2",
    [chainId, limit],
  );
  return rows.map((r) => r.address);
}

/** Stores fetched metadata (nulls where a call failed) and names the token's address after it. */
export async function saveTokenMetadata(db: Queryable, tokens: readonly TokenRow[]): Promise<void> {
  if (tokens.length === 0) return;
  await upsertTokens(db, tokens);
  const chainId = tokens[0]!.chainId;
  const addresses = hexArray(tokens.map((t) => t.address));
  await db.query(
    `UPDATE tokens SET metadata_fetched = true
     WHERE chain_id = $1 AND address = ANY(SELECT decode(x, 'hex') FROM unnest($2::text[]) x)`,
    [chainId, addresses],
  );
  await db.query(
    `INSERT INTO addresses (chain_id, hash, is_contract, name)
     SELECT $1, decode(u.address, 'hex'), true, u.name FROM unnest($2::text[], $3::text[]) AS u(address, name)
     WHERE u.name IS NOT NULL
     ON CONFLICT (chain_id, hash) DO UPDATE SET name = excluded.name`,
    [chainId, addresses, tokens.map((t) => t.name)],
  );
}

/**
 * Removes those of `tokens` nobody holds any of (every balance row zero), with their zero rows:
 * a rollback's tokens whose contract did not exist at the common ancestor, so everything the
 * index knew of them came from the orphaned blocks. Returns the tokens removed.
 */
export async function forgetTokensWithoutBalances(db: Queryable, chainId: number, tokens: readonly string[]): Promise<string[]> {
  if (tokens.length === 0) return [];
  const removed = await db.query<{ token: string }>(
    `DELETE FROM tokens t
     WHERE t.chain_id = $1 AND t.address = ANY(SELECT decode(x, 'hex') FROM unnest($2::text[]) x)
       AND NOT EXISTS (SELECT 1 FROM token_balances b WHERE b.chain_id = t.chain_id AND b.token = t.address AND b.value <> 0)
     RETURNING '0x' || encode(t.address, 'hex') AS token`,
    [chainId, hexArray(tokens)],
  );
  if (removed.length === 0) return [];
  await db.query(
    `DELETE FROM token_balances WHERE chain_id = $1 AND token = ANY(SELECT decode(x, 'hex') FROM unnest($2::text[]) x)`,
    [chainId, hexArray(removed.map((r) => r.token))],
  );
  return removed.map((r) => r.token);
}
