import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type AddressInfo } from 'node:net';
import type { Hex } from '../../src/db/rows.js';
import { buildServer } from '../../src/api/server.js';
import { DatabaseUnavailableError, type Database } from '../../src/db/client.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { createApiKey } from '../../src/db/queries/api-keys.js';
import { putBalances, upsertTokens } from '../../src/db/queries/write-tokens.js';
import { upsertBlocks } from '../../src/db/queries/write-blocks.js';
import {
  ConnectionError,
  createExplorerClient,
  ExplorerError,
  NotFoundError,
  RateLimitedError,
  RestrictedError,
  ServiceUnavailableError,
  UnauthorizedError,
  ValidationError,
  type ExplorerClient,
  type HolderItem,
} from '../../src/index.js';
import { apiConfig, listen, startTestApi, TEST_KEY, type TestApi } from '../support/api.js';
import { addressOf, blockRow, byHoldersOrder } from '../support/seed.js';

const CHAIN = 1;
const SECRET = 'sdk-secret';
const token = (name: string) => addressOf(0, `sdk-token:${name}`);
const TOKENS = { big: token('big'), multi: token('multi'), slow: token('slow'), restricted: token('restricted') };
const MINER = addressOf(1, 'sdk-miner');

interface Seeded {
  holder: Hex;
  value: bigint;
  tokenId: bigint | null;
}
const asRow = (i: HolderItem) => ({ holder: i.address.hash.toLowerCase(), value: i.value, tokenId: i.token_id });
const expectedRows = (seeded: Seeded[]) =>
  [...seeded].sort(byHoldersOrder).map((s) => ({ holder: s.holder, value: s.value.toString(), tokenId: s.tokenId?.toString() ?? null }));

// 1,234 holders; values repeat every 37 so most page boundaries fall inside a run of equal values
const BIG: Seeded[] = Array.from({ length: 1_234 }, (_, i) => ({
  holder: addressOf(i, 'sdk-holder'),
  value: BigInt((i * 7) % 37 + 1) * 10n ** 24n,
  tokenId: null,
}));
// ERC-1155: 5 holders × 80 ids, all with the same value: every (value, holder) pair repeats 80 times
const MULTI: Seeded[] = Array.from({ length: 400 }, (_, i) => ({
  holder: addressOf(i % 5, 'sdk-holder'),
  value: 3n,
  tokenId: BigInt(1_000 + Math.floor(i / 5)),
}));
const SLOW: Seeded[] = Array.from({ length: 180 }, (_, i) => ({ holder: addressOf(i, 'sdk-slow'), value: BigInt(i + 1), tokenId: null }));
const RESTRICTED: Seeded[] = Array.from({ length: 120 }, (_, i) => ({ holder: addressOf(i, 'sdk-r'), value: 5n, tokenId: null }));
const BLOCKS = Array.from({ length: 130 }, (_, i) => 1_000 + i * 3);

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of iterable) out.push(x);
  return out;
}

describe('SDK against a real server (PGlite)', () => {
  let api: TestApi;
  let baseUrl: string;
  let client: ExplorerClient;

  beforeAll(async () => {
    api = await startTestApi('pglite', { api: { restrictedKey: SECRET, restrictedAddresses: [TOKENS.restricted] } });
    const { db } = api;
    await ensureChain(db, CHAIN);
    await upsertTokens(db, [
      ...[TOKENS.big, TOKENS.slow, TOKENS.restricted].map((address) => ({
        chainId: CHAIN, address, type: 'ERC-20' as const, name: null, symbol: null, decimals: null, totalSupply: null,
      })),
      { chainId: CHAIN, address: TOKENS.multi, type: 'ERC-1155', name: null, symbol: null, decimals: null, totalSupply: null },
    ]);
    const rows = (t: Hex, seeded: Seeded[]) =>
      seeded.map((s) => ({ chainId: CHAIN, token: t, holder: s.holder, tokenId: s.tokenId, value: s.value, blockNumber: 1n }));
    await putBalances(db, rows(TOKENS.big, BIG));
    await putBalances(db, rows(TOKENS.multi, MULTI));
    await putBalances(db, rows(TOKENS.slow, SLOW));
    await putBalances(db, rows(TOKENS.restricted, RESTRICTED));
    await upsertBlocks(db, BLOCKS.map((n) => blockRow(CHAIN, n, MINER)));
    baseUrl = await listen(api.app);
    client = createExplorerClient({ baseUrl, apiKey: TEST_KEY });
  });
  afterAll(() => api?.close());

  it('block(): by number and by hash, typed; a missing block is a NotFoundError', async () => {
    const n = BLOCKS[0]!;
    const byNumber = await client.block(CHAIN, n);
    expect(byNumber.height).toBe(n);
    expect(byNumber.hash).toBe(blockRow(CHAIN, n, MINER).hash);
    expect(byNumber.burnt_blob_fees).toMatch(/^[0-9]+$/);
    expect((await client.block(CHAIN, byNumber.hash)).height).toBe(n);
    expect((await client.block(CHAIN, BigInt(n))).hash).toBe(byNumber.hash);
    await expect(client.block(CHAIN, 10n ** 30n)).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.block(CHAIN, 'latest')).rejects.toBeInstanceOf(ValidationError);
  });

  it('iterateHolders over 1,234 holders, page size 50: each exactly once, in order', async () => {
    const items = await collect(client.iterateHolders(CHAIN, TOKENS.big, { itemsCount: 50 }));
    expect(items.map(asRow)).toEqual(expectedRows(BIG));
    expect(new Set(items.map((i) => i.address.hash)).size).toBe(BIG.length);
  });

  it('holdersPages: full pages of 50, items_count echoed, null exactly at the end', async () => {
    const pages = await collect(client.holdersPages(CHAIN, TOKENS.big, { itemsCount: 50 }));
    expect(pages).toHaveLength(Math.ceil(BIG.length / 50));
    for (const page of pages.slice(0, -1)) {
      expect(page.items).toHaveLength(50);
      expect(page.next_page_params?.items_count).toBe(50);
    }
    expect(pages.at(-1)!.items).toHaveLength(BIG.length % 50);
    expect(pages.at(-1)!.next_page_params).toBeNull();
  });

  it('holders(): one typed page; `after` continues where it ended', async () => {
    const first = await client.holders(CHAIN, TOKENS.big, { itemsCount: 10 });
    const last = first.items.at(-1)!;
    expect(first.next_page_params).toEqual({ address_hash: last.address.hash.toLowerCase(), items_count: 10, value: last.value });
    const second = await client.holders(CHAIN, TOKENS.big, { after: first.next_page_params! });
    expect([...first.items, ...second.items].map(asRow)).toEqual(expectedRows(BIG).slice(0, 20));
  });

  it('ERC-1155 with 80 rows per (value, holder): every row once, via token_id in next_page_params', async () => {
    const pages = await collect(client.holdersPages(CHAIN, TOKENS.multi, { itemsCount: 50 }));
    expect(pages[0]!.next_page_params?.token_id).toBe(pages[0]!.items.at(-1)!.token_id);
    const items = pages.flatMap((p) => p.items);
    expect(items.map(asRow)).toEqual(expectedRows(MULTI));
    expect(new Set(items.map((i) => `${i.address.hash}:${i.token_id}`)).size).toBe(MULTI.length);
  });

  it('tokenId: one ERC-1155 id\'s holders (instances/{id}/holders), every holder once over pages of 2', async () => {
    const id = 1_042n;
    const items = await collect(client.iterateHolders(CHAIN, TOKENS.multi, { tokenId: id, itemsCount: 2 }));
    expect(items.map(asRow)).toEqual(expectedRows(MULTI.filter((s) => s.tokenId === id)));
    expect(items).toHaveLength(5);
    expect(await collect(client.iterateHolders(CHAIN, TOKENS.multi, { tokenId: '999' }))).toEqual([]);
    await expect(client.holders(CHAIN, TOKENS.big, { tokenId: id })).rejects.toBeInstanceOf(NotFoundError);
    // the seeded balances were set at block 1 and the server has indexed none: no past block to ask
    await expect(client.holders(CHAIN, TOKENS.multi, { tokenId: id, blockNumber: 1 })).rejects.toBeInstanceOf(ValidationError);
  });

  it('iterateValidatedBlocks: every block once, newest first', async () => {
    const blocks = await collect(client.iterateValidatedBlocks(CHAIN, MINER, { itemsCount: 50 }));
    expect(blocks.map((b) => b.height)).toEqual([...BLOCKS].reverse());
    expect(blocks[0]!.miner.hash.toLowerCase()).toBe(MINER);
  });

  it('iterateBlocks and latestBlocks: the chain\'s blocks newest first, each once; its reorged blocks apart', async () => {
    const all = await collect(client.iterateBlocks(CHAIN, { itemsCount: 7 }));
    expect(all.map((b) => b.height)).toEqual([...BLOCKS].reverse());
    expect((await client.latestBlocks(CHAIN)).map((b) => b.height)).toEqual([...BLOCKS].reverse().slice(0, 4));
    const page = await client.blocks(CHAIN, { itemsCount: 2, after: { block_number: BLOCKS[3]!, items_count: 2 } });
    expect(page.items.map((b) => b.height)).toEqual([BLOCKS[2], BLOCKS[1]]);
    expect(await collect(client.iterateBlocks(CHAIN, { type: 'reorg' }))).toEqual([]);
  });

  it('the key is echoed and followed: a restricted token pages through with it', async () => {
    const items = await collect(client.iterateHolders(CHAIN, TOKENS.restricted, { itemsCount: 50, key: SECRET }));
    expect(items.map(asRow)).toEqual(expectedRows(RESTRICTED));
  });

  it('tokenCounters: the holder count as the reference shapes it', async () => {
    expect(await client.tokenCounters(CHAIN, TOKENS.big)).toEqual({ token_holders_count: String(BIG.length), transfers_count: null });
    expect(await client.tokenCounters(CHAIN, TOKENS.multi)).toEqual({ token_holders_count: '5', transfers_count: null });
  });

  describe('typed errors', () => {
    const failure = (p: Promise<unknown>) => p.then(() => expect.unreachable('no error'), (e: unknown) => e as ExplorerError);

    it('401 UnauthorizedError, without the key in the error', async () => {
      const bad = createExplorerClient({ baseUrl, apiKey: 'not-a-key' });
      const error = await failure(bad.holders(CHAIN, TOKENS.big));
      expect(error).toBeInstanceOf(UnauthorizedError);
      expect(error).toBeInstanceOf(ExplorerError);
      expect(error.status).toBe(401);
      expect(error.message).toBe('Invalid or missing API key');
      expect(error.url).not.toContain('not-a-key');
    });

    it('no answer at all: ConnectionError, status 0, the cause kept, the key not in it', async () => {
      // a port nothing listens on any more: the connection is refused
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const { port } = probe.address() as AddressInfo;
      await new Promise<void>((resolve) => probe.close(() => resolve()));
      const down = createExplorerClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'secret-key-12345' });
      const error = await failure(down.holders(CHAIN, TOKENS.big));
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error).toBeInstanceOf(ExplorerError);
      expect(error.status).toBe(0);
      expect(error.message).toBe('cannot reach the server: ECONNREFUSED');
      expect(error.cause).toBeInstanceOf(Error);
      expect(error.url).not.toContain('secret-key-12345');
      // a call its caller cancels is not a network failure
      const controller = new AbortController();
      controller.abort(new Error('stop'));
      const cancelled = await down.holders(CHAIN, TOKENS.big, { signal: controller.signal }).then(() => null, (e: unknown) => e);
      expect(cancelled).not.toBeInstanceOf(ExplorerError);
    });

    it('403 RestrictedError without the secret', async () => {
      const error = await failure(client.holders(CHAIN, TOKENS.restricted));
      expect(error).toBeInstanceOf(RestrictedError);
      expect(error.message).toBe('Restricted access');
    });

    it('404 NotFoundError: unknown token, unknown chain', async () => {
      expect(await failure(client.holders(CHAIN, addressOf(1, 'no-token')))).toBeInstanceOf(NotFoundError);
      expect(await failure(client.validatedBlocks(999_999, MINER))).toBeInstanceOf(NotFoundError);
    });

    it('422 ValidationError with the errors array', async () => {
      const badHash = await failure(client.holders(CHAIN, '0x12'));
      expect(badHash).toBeInstanceOf(ValidationError);
      expect((badHash as ValidationError).errors).toEqual([
        { title: 'Invalid value', source: { pointer: '/address_hash_param' }, detail: 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{40})$/' },
      ]);
      const tooMany = (await failure(client.validatedBlocks(CHAIN, MINER, { itemsCount: 51 }))) as ValidationError;
      expect(tooMany.errors[0]!.detail).toBe('51 is larger than inclusive maximum 50');
    });

    it('429 RateLimitedError once retries are exhausted', async () => {
      const { key } = await createApiKey(api.db, 'sdk-no-retry', 1);
      const impatient = createExplorerClient({ baseUrl, apiKey: key, maxRetries: 0 });
      const results = await Promise.allSettled([1, 2, 3].map(() => impatient.holders(CHAIN, TOKENS.slow, { itemsCount: 1 })));
      const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as RateLimitedError);
      expect(rejected.length).toBeGreaterThanOrEqual(2);
      for (const error of rejected) {
        expect(error).toBeInstanceOf(RateLimitedError);
        expect(error.retryAfterMs).toBeGreaterThan(0);
      }
    });

    it('503 ServiceUnavailableError when the database is down', async () => {
      const down: Database = {
        engine: 'pglite',
        query: async () => { throw new DatabaseUnavailableError(new Error('connection refused')); },
        transaction: async () => { throw new DatabaseUnavailableError(new Error('connection refused')); },
        exec: async () => undefined,
        close: async () => undefined,
      };
      const app = await buildServer({ db: down, api: apiConfig() });
      try {
        const downClient = createExplorerClient({ baseUrl: await listen(app), apiKey: TEST_KEY });
        const error = await failure(downClient.holders(CHAIN, TOKENS.big));
        expect(error).toBeInstanceOf(ServiceUnavailableError);
        expect(error.status).toBe(503);
      } finally {
        await app.close();
      }
    });
  });

  it('a key limited to 1 request/s: the iterator waits out each 429 and still completes', async () => {
    const { key } = await createApiKey(api.db, 'sdk-slow', 1);
    let limited = 0;
    const counting: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (response.status === 429) limited++;
      return response;
    };
    const slow = createExplorerClient({ baseUrl, apiKey: key, fetch: counting, maxRetries: 10 });
    const items = await collect(slow.iterateHolders(CHAIN, TOKENS.slow, { itemsCount: 50 }));
    expect(items.map(asRow)).toEqual(expectedRows(SLOW));
    // four back-to-back pages against a budget of one per second
    expect(limited).toBeGreaterThan(0);
  });
});
