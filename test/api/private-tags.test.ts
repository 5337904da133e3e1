import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import { ensureChain } from '../../src/db/queries/chains.js';
import { putBalances, upsertTokens } from '../../src/db/queries/write-tokens.js';
import { createApiKey } from '../../src/db/queries/api-keys.js';
import { ACCOUNT_LIMITS } from '../../src/api/schemas/account.js';
import { availableEngines } from '../support/databases.js';
import { startTestApi, TEST_KEY, type TestApi } from '../support/api.js';
import { addressOf } from '../support/seed.js';
import { assertWire, holdersPageSchema } from './wire-schema.js';

const CHAIN = 7;
const TOKEN = addressOf(0, 'private-token');
const HOLDERS = Array.from({ length: 3 }, (_, i) => addressOf(i, 'private'));
const TAGS = '/api/account/v2/user/tags/address';
const WATCH = '/api/account/v2/user/watchlist';

describe.each(await availableEngines())('private tags and watchlists per key on %s', (engine) => {
  let api: TestApi;
  let alice: string;
  let bob: string;
  const call = (key: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
    api.app.inject({ method, url, headers: { 'x-api-key': key }, ...(body === undefined ? {} : { payload: body as object }) });
  const page = async (key: string) => {
    const res = await api.app.inject({ url: `/${CHAIN}/api/v2/tokens/${TOKEN}/holders`, headers: { 'x-api-key': key } });
    expect(res.statusCode).toBe(200);
    assertWire(holdersPageSchema, res.json());
    const byHash = new Map<string, { private_tags: unknown[]; watchlist_names: unknown[] }>(
      res.json().items.map((i: any) => [i.address.hash.toLowerCase(), i.address]),
    );
    return { cached: res.headers['x-cache'] === 'hit', byHash };
  };
  /** what each key should see: built from what the test wrote, per holder */
  const seen = async (key: string) => {
    const { byHash } = await page(key);
    return HOLDERS.map((h) => [byHash.get(h)!.private_tags, byHash.get(h)!.watchlist_names]);
  };

  beforeAll(async () => {
    // the page cache on, for a minute: isolation must hold with cached pages
    api = await startTestApi(engine, { api: { pageCacheMs: 60_000 } });
    await ensureChain(api.db, CHAIN);
    await upsertTokens(api.db, [{ chainId: CHAIN, address: TOKEN, type: 'ERC-20', name: null, symbol: null, decimals: null, totalSupply: null }]);
    await putBalances(api.db, HOLDERS.map((holder, i) => ({ chainId: CHAIN, token: TOKEN, holder, tokenId: null, value: BigInt(10 - i), blockNumber: 1n })));
    alice = (await createApiKey(api.db, 'alice', null)).key;
    bob = (await createApiKey(api.db, 'bob', null)).key;
  });
  afterAll(() => api?.close());

  it('two keys each see only their own private tags and watchlist names on the same cached holders page', async () => {
    // everybody's page is the shared one while nobody has entries
    await page(alice);
    expect((await page(bob)).cached).toBe(true);

    const a1 = await call(alice, 'POST', TAGS, { address_hash: HOLDERS[0], name: 'alice cold' });
    expect(a1.statusCode, a1.body).toBe(200);
    expect(a1.json()).toMatchObject({ address_hash: getAddress(HOLDERS[0]!), name: 'alice cold' });
    expect((await call(alice, 'POST', WATCH, { address_hash: HOLDERS[1], name: 'alice watch' })).statusCode).toBe(200);
    expect((await call(bob, 'POST', TAGS, { address_hash: HOLDERS[0], name: 'bob tag' })).statusCode).toBe(200);

    const tag = (h: string, name: string) => [{ address_hash: getAddress(h), display_name: name, label: name }];
    const watch = (name: string) => [{ display_name: name, label: name }];
    const aliceSees = [[tag(HOLDERS[0]!, 'alice cold'), []], [[], watch('alice watch')], [[], []]];
    const bobSees = [[tag(HOLDERS[0]!, 'bob tag'), []], [[], []], [[], []]];
    const nobody = [[[], []], [[], []], [[], []]];
    for (let round = 0; round < 2; round++) {
      // the second round comes from the cache for each key
      expect(await seen(alice)).toEqual(aliceSees);
      expect(await seen(bob)).toEqual(bobSees);
      expect(await seen(TEST_KEY)).toEqual(nobody);
    }
    expect((await page(alice)).cached).toBe(true);
    expect((await page(bob)).cached).toBe(true);
    expect((await page(TEST_KEY)).cached).toBe(true);
    // the single address page (GET /addresses/{hash}) carries the same, per key
    const addressPage = async (key: string) =>
      (await api.app.inject({ url: `/${CHAIN}/api/v2/addresses/${HOLDERS[1]}`, headers: { 'x-api-key': key } })).json();
    expect((await addressPage(alice)).watchlist_names).toEqual(watch('alice watch'));
    expect((await addressPage(bob)).watchlist_names).toEqual([]);
  });

  it('the account API: list, change, delete; one key cannot see or touch another\'s entries', async () => {
    const list = await call(alice, 'GET', TAGS);
    expect(list.json()).toEqual({ items: [{ id: expect.any(Number), address_hash: getAddress(HOLDERS[0]!), name: 'alice cold' }], next_page_params: null });
    const id = list.json().items[0].id as number;
    expect((await call(bob, 'PUT', `${TAGS}/${id}`, { address_hash: HOLDERS[2], name: 'stolen' })).statusCode).toBe(404);
    expect((await call(bob, 'DELETE', `${TAGS}/${id}`)).statusCode).toBe(404);
    const changed = await call(alice, 'PUT', `${TAGS}/${id}`, { address_hash: HOLDERS[2], name: 'moved' });
    expect(changed.statusCode).toBe(200);
    expect((await seen(alice))[2]![0]).toEqual([{ address_hash: getAddress(HOLDERS[2]!), display_name: 'moved', label: 'moved' }]);
    expect((await seen(alice))[0]![0]).toEqual([]);
    expect((await call(alice, 'DELETE', `${TAGS}/${id}`)).json()).toEqual({ message: 'OK' });
    expect((await call(alice, 'GET', TAGS)).json().items).toEqual([]);
    expect((await seen(bob))[0]![0]).toEqual([{ address_hash: getAddress(HOLDERS[0]!), display_name: 'bob tag', label: 'bob tag' }]);
  });

  it('limits: name length, one entry per address, entries per key; no key is 401', async () => {
    const long = await call(bob, 'POST', WATCH, { address_hash: HOLDERS[0], name: 'x'.repeat(ACCOUNT_LIMITS.nameLength + 1) });
    expect(long.statusCode).toBe(422);
    expect((await call(bob, 'POST', WATCH, { address_hash: '0x12', name: 'x' })).statusCode).toBe(422);
    expect((await call(bob, 'POST', TAGS, { address_hash: HOLDERS[0], name: 'again' })).statusCode).toBe(422);
    expect((await api.app.inject({ method: 'GET', url: WATCH })).statusCode).toBe(401);
    // fill bob's watchlist to the limit directly, then one more through the API
    await api.db.query(
      `INSERT INTO account_addresses (owner, kind, address, name)
       SELECT $1, 'watchlist', decode(lpad(to_hex(i), 40, '0'), 'hex'), 'w' || i FROM generate_series(1, $2) i`,
      [(await bobId()), ACCOUNT_LIMITS.entriesPerKind],
    );
    const full = await call(bob, 'POST', WATCH, { address_hash: HOLDERS[2], name: 'one too many' });
    expect(full.statusCode).toBe(422);
    expect(full.json().errors[0].detail).toMatch(/At most 2000/);
    // and paging walks all of them exactly once
    const ids = new Set<number>();
    let next: string | null = '';
    while (next !== null) {
      const res: any = (await call(bob, 'GET', `${WATCH}?items_count=50${next}`)).json();
      for (const item of res.items) ids.add(item.id);
      next = res.next_page_params ? `&id=${res.next_page_params.id}` : null;
    }
    expect(ids.size).toBe(ACCOUNT_LIMITS.entriesPerKind);
  });

  async function bobId(): Promise<string> {
    const rows = await api.db.query<{ owner: string }>("SELECT DISTINCT owner FROM account_addresses WHERE name = 'bob tag'");
    return rows[0]!.owner;
  }
});
