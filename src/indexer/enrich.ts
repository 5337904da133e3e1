import type { RpcClient } from '../rpc/client.js';
import { fetchTokenMetadata } from '../evm/token-metadata.js';
import { detectProxies } from '../evm/proxy.js';
import { sleep } from '../rpc/backoff.js';
import type { Database } from '../db/client.js';
import type { AddressRow, Hex, TokenRow } from '../db/rows.js';
import { saveTokenMetadata, tokensWithoutMetadata } from '../db/queries/write-tokens.js';
import { uncheckedAddresses, upsertAddresses } from '../db/queries/write-addresses.js';
import { FailureLog } from './failure-log.js';
import type { Logger } from './logger.js';
import { BlobFieldsBackfill } from './blob-backfill.js';
import { renderPendingBlockPages } from '../db/queries/block-pages.js';

const TOKENS_PER_ROUND = 200;
const ADDRESSES_PER_ROUND = 500;
/** rendering a block's page part takes some 10 µs: a round stays short beside the pipeline */
const BLOCK_PAGES_PER_ROUND = 1_000;

/** One round of token metadata; returns how many tokens it handled. */
export async function enrichTokens(db: Database, rpc: RpcClient, chainId: number): Promise<number> {
  const pending = await tokensWithoutMetadata(db, chainId, TOKENS_PER_ROUND);
  if (pending.length === 0) return 0;
  const metadata = await fetchTokenMetadata(rpc, pending);
  const rows: TokenRow[] = [...metadata].map(([address, m]) => ({
    chainId,
    address,
    type: 'ERC-20', // ignored on update: the type stays what the events said
    name: m.name,
    symbol: m.symbol,
    decimals: m.decimals,
    totalSupply: m.totalSupply,
  }));
  await db.transaction((tx) => saveTokenMetadata(tx, rows));
  return rows.length;
}

/** One round of contract and proxy detection; returns how many addresses it handled. */
export async function enrichAddresses(db: Database, rpc: RpcClient, chainId: number): Promise<number> {
  const pending = await uncheckedAddresses(db, chainId, ADDRESSES_PER_ROUND);
  if (pending.length === 0) return 0;
  const proxies = await detectProxies(rpc, pending);
  const names = await implementationNames(db, chainId, [...proxies.values()].flatMap((p) => p.implementations));
  const rows: AddressRow[] = [...proxies].map(([hash, p]) => ({
    chainId,
    hash,
    isContract: p.isContract,
    proxyType: p.proxyType,
    implementations: p.implementations.map((address) => ({ address, name: names.get(address) ?? null })),
    name: null,
    isVerified: false,
    ensDomainName: null,
    isScam: false,
  }));
  await upsertAddresses(db, rows);
  return rows.length;
}

async function implementationNames(db: Database, chainId: number, addresses: Hex[]): Promise<Map<string, string>> {
  if (addresses.length === 0) return new Map();
  const rows = await db.query<{ hash: string; name: string }>(
    `SELECT '0x' || encode(hash, 'hex') AS hash, name FROM addresses
     WHERE chain_id = $1 AND name IS NOT NULL AND hash = ANY(SELECT decode(substr(x, 3), 'hex') FROM unnest($2::text[]) x)`,
    [chainId, addresses],
  );
  return new Map(rows.map((r) => [r.hash, r.name]));
}

/**
 * Runs beside the block pipeline, never in its way: what it learns (token names, contract
 * and proxy facts, the blob fields of blocks stored before they existed) only decorates rows the
 * pipeline already wrote. It also renders the page part of blocks that have none (stored before
 * migration 021, or given their blob fields since): pages read those as full rows until then.
 */
export async function runEnrichment(
  db: Database,
  rpc: RpcClient,
  chainId: number,
  logger: Logger,
  signal: AbortSignal,
  idleMs = 1_000,
): Promise<void> {
  const blobFields = new BlobFieldsBackfill(db, rpc, chainId);
  const failures = new FailureLog(logger, { chainId }, 'warn', { failed: 'enrichment round failed; retrying', recovered: 'enrichment recovered' });
  while (!signal.aborted) {
    try {
      const done = (await enrichTokens(db, rpc, chainId)) + (await enrichAddresses(db, rpc, chainId)) + (await blobFields.step()) +
        (await renderPendingBlockPages(db, chainId, BLOCK_PAGES_PER_ROUND));
      failures.succeeded();
      if (done > 0) continue;
    } catch (error) {
      if (signal.aborted) return;
      failures.failed(error);
    }
    await sleep(idleMs, signal).catch(() => undefined);
  }
}
