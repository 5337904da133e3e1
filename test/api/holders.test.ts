import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress as checksumAddress } from 'viem';
import type { Hex } from '../../src/db/rows.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { putBalances, upsertTokens } from '../../src/db/queries/write-tokens.js';
import { upsertAddresses, upsertAddressTags } from '../../src/db/queries/write-addresses.js';
import { availableEngines } from '../support/databases.js';
import { startTestApi, TEST_KEY, type TestApi } from '../support/api.js';
import { addressOf } from '../support/seed.js';
import { assertWire, holdersPageSchema, messageSchema } from './wire-schema.js';

const CHAIN = 1;
const ZERO = '0x0000000000000000000000000000000000000000';
const DEAD = '0x000000000000000000000000000000000000dead';

const tokenAddress = (name: string) => addressOf(0, `token:${name}`);
const TOKENS = {
  distinct: tokenAddress('distinct'),
  equal: tokenAddress('equal'),
  empty: tokenAddress('empty'),
  nft: tokenAddress('nft'),
  multi: tokenAddress('multi'),
  mixed: tokenAddress('mixed'),
  decorated: tokenAddress('decorated'),
};
const HOLDERS = Array.from({ length: 51 }, (_, i) => addressOf(i));
const byAddressDesc = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);

describe.each(await availableEngines())('holders on %s', (engine) => {
  let api: TestApi;
  const holders = (token: string, query: Record<string, string | number> = {}) =>
    api.get(`/${CHAIN}/api/v2/tokens/${token}/holders`, query);

  beforeAll(async () => {
    api = await startTestApi(engine);
    const { db } = api;
    await ensureChain(db, CHAIN);
    const token = (address: Hex, type: 'ERC-20' | 'ERC-721' | 'ERC-1155') => ({
      chainId: CHAIN, address, type, name: null, symbol: null, decimals: null, totalSupply: null,
    });
    await upsertTokens(db, [
      token(TOKENS.distinct, 'ERC-20'), token(TOKENS.equal, 'ERC-20'), token(TOKENS.empty, 'ERC-20'),
      token(TOKENS.nft, 'ERC-721'), token(TOKENS.multi, 'ERC-1155'), token(TOKENS.mixed, 'ERC-20'),
      token(TOKENS.decorated, 'ERC-20'),
    ]);
    const balance = (t: Hex, holder: string, value: bigint, tokenId: bigint | null = null) => ({
      chainId: CHAIN, token: t, holder: holder as Hex, tokenId, value, blockNumber: 1n,
    });
    await putBalances(db, [
      // 51 holders with distinct values, some beyond 2^64 and one near 2^256
      ...HOLDERS.map((h, i) => balance(TOKENS.distinct, h, (BigInt(i) + 1n) * 10n ** 20n)),
      ...HOLDERS.map((h) => balance(TOKENS.equal, h, 7n)),
      ...HOLDERS.slice(0, 5).map((h, i) => balance(TOKENS.nft, h, BigInt(i + 1))),
      // ERC-1155: 60 rows sharing (value, holder) pairs across token ids — the skip case
      ...Array.from({ length: 60 }, (_, i) => balance(TOKENS.multi, HOLDERS[i % 3]!, 1n, BigInt(1000 + i))),
      // zero balance, the burn address, a dead address, a max-uint256 balance
      balance(TOKENS.mixed, HOLDERS[0]!, 0n),
      balance(TOKENS.mixed, ZERO, 10n ** 30n),
      balance(TOKENS.mixed, DEAD, 5n),
      balance(TOKENS.mixed, HOLDERS[1]!, 2n ** 256n - 1n),
      balance(TOKENS.decorated, HOLDERS[2]!, 1n),
      balance(TOKENS.decorated, HOLDERS[3]!, 2n),
    ]);
    await upsertAddresses(db, [
      {
        chainId: CHAIN, hash: HOLDERS[2]!, isContract: true, proxyType: 'eip1967',
        implementations: [{ address: addressOf(77, 'impl'), name: 'TokenImpl' }], name: 'Proxy',
        isVerified: false, ensDomainName: 'holder.eth', isScam: false,
      },
    ]);
    await upsertAddressTags(db, [
      { chainId: CHAIN, address: HOLDERS[2]!, kind: 'metadata', slug: 'exchange', name: 'Exchange', tagType: 'generic', ordinal: 1, meta: { tooltipUrl: 'https://example.org' } },
      { chainId: CHAIN, address: HOLDERS[2]!, kind: 'public', slug: 'hot-wallet', name: 'Hot wallet', tagType: 'name', ordinal: 0, meta: {} },
    ]);
  });
  afterAll(() => api?.close());

  it('unknown token: 404 Not found', async () => {
    const res = await holders(addressOf(12345, 'nothing'));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Not found' });
    assertWire(messageSchema, res.body);
  });

  it('a token with no holders: empty 200', async () => {
    const res = await holders(TOKENS.empty);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [], next_page_params: null });
  });

  it('51 holders with distinct values: 50 + 1, largest first, smallest last', async () => {
    const first = await holders(TOKENS.distinct);
    expect(first.status).toBe(200);
    assertWire(holdersPageSchema, first.body);
    expect(first.body.items).toHaveLength(50);
    expect(first.body.items[0].value).toBe((51n * 10n ** 20n).toString());
    expect(first.body.items[0].address.hash.toLowerCase()).toBe(HOLDERS[50]);
    expect(first.body.items[0].token_id).toBeNull();
    const last = first.body.items[49];
    expect(first.body.next_page_params).toEqual({ address_hash: last.address.hash.toLowerCase(), items_count: 50, value: last.value });
    const second = await holders(TOKENS.distinct, first.body.next_page_params);
    assertWire(holdersPageSchema, second.body);
    expect(second.body.items).toHaveLength(1);
    expect(second.body.items[0].value).toBe((10n ** 20n).toString());
    expect(second.body.items[0].address.hash.toLowerCase()).toBe(HOLDERS[0]);
    expect(second.body.next_page_params).toBeNull();
  });

  it('51 holders with equal values: paged by address descending', async () => {
    const expected = [...HOLDERS].sort(byAddressDesc);
    const first = await holders(TOKENS.equal);
    const second = await holders(TOKENS.equal, first.body.next_page_params);
    const got = [...first.body.items, ...second.body.items].map((i: any) => i.address.hash.toLowerCase());
    expect(got).toEqual(expected);
    expect(second.body.next_page_params).toBeNull();
  });

  it('items_count is the page size, echoed in next_page_params', async () => {
    const all: string[] = [];
    let query: Record<string, string | number> = { items_count: 7 };
    for (;;) {
      const res = await holders(TOKENS.distinct, query);
      assertWire(holdersPageSchema, res.body);
      expect(res.body.items.length).toBeLessThanOrEqual(7);
      all.push(...res.body.items.map((i: any) => i.value));
      if (!res.body.next_page_params) break;
      expect(res.body.next_page_params.items_count).toBe(7);
      query = res.body.next_page_params;
    }
    const expected = HOLDERS.map((_, i) => ((51n - BigInt(i)) * 10n ** 20n).toString());
    expect(all).toEqual(expected);
  });

  it('a name sent twice is its last value, as the reference reads it: a loop that appends next_page_params to a URL holding items_count pages on', async () => {
    const inject = async (url: string) => {
      const res = await api.app.inject(url);
      expect(res.statusCode).toBe(200);
      return res.json() as { items: Array<{ value: string }>; next_page_params: Record<string, string | number> | null };
    };
    const base = `/${CHAIN}/api/v2/tokens/${TOKENS.distinct}/holders?apikey=${TEST_KEY}&items_count=9`;
    const all: string[] = [];
    let page = await inject(base);
    for (;;) {
      all.push(...page.items.map((i) => i.value));
      if (!page.next_page_params) break;
      const next = new URLSearchParams(Object.entries(page.next_page_params).map(([k, v]): [string, string] => [k, String(v)]));
      page = await inject(`${base}&${next}`);
    }
    expect(all).toEqual(HOLDERS.map((_, i) => ((51n - BigInt(i)) * 10n ** 20n).toString()));
    expect((await inject(`${base}&items_count=2&items_count=3`)).items).toHaveLength(3);
  });

  it('a trailing or doubled slash finds the route, as the reference splits paths', async () => {
    const plain = await holders(TOKENS.distinct, { items_count: 2 });
    for (const path of [
      `/${CHAIN}/api/v2/tokens/${TOKENS.distinct}/holders/`,
      `//${CHAIN}/api/v2/tokens/${TOKENS.distinct}/holders`,
      `/${CHAIN}//api/v2/tokens/${TOKENS.distinct}//holders`,
    ]) {
      const raw = await api.app.inject(`${path}?apikey=${TEST_KEY}&items_count=2`);
      expect([path, raw.statusCode]).toEqual([path, 200]);
      expect(raw.json()).toEqual(plain.body);
    }
  });

  it('key is echoed in next_page_params, apikey never', async () => {
    const res = await holders(TOKENS.distinct, { items_count: 1, key: 'secret-x' });
    expect(res.body.next_page_params.key).toBe('secret-x');
    expect(res.body.next_page_params).not.toHaveProperty('apikey');
  });

  it('one half of the keyset alone gives the first page again', async () => {
    const first = await holders(TOKENS.distinct, { items_count: 3 });
    const onlyValue = await holders(TOKENS.distinct, { items_count: 3, value: '5' });
    const onlyHash = await holders(TOKENS.distinct, { items_count: 3, address_hash: HOLDERS[3]! });
    expect(onlyValue.body).toEqual(first.body);
    expect(onlyHash.body).toEqual(first.body);
  });

  it('an empty or "null" value key continues in the NULL-value block: empty here', async () => {
    for (const value of ['', 'null']) {
      const res = await holders(TOKENS.distinct, { value, address_hash: HOLDERS[3]! });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ items: [], next_page_params: null });
    }
  });

  it('ERC-721: value is the number of NFTs held, token_id null', async () => {
    const res = await holders(TOKENS.nft);
    expect(res.body.items.map((i: any) => [i.value, i.token_id])).toEqual([
      ['5', null], ['4', null], ['3', null], ['2', null], ['1', null],
    ]);
  });

  it('ERC-1155: one row per (holder, token_id); token_id paging skips and repeats nothing', async () => {
    const seen: string[] = [];
    let query: Record<string, string | number> = { items_count: 7 };
    for (;;) {
      const res = await holders(TOKENS.multi, query);
      assertWire(holdersPageSchema, res.body);
      seen.push(...res.body.items.map((i: any) => `${i.address.hash.toLowerCase()}:${i.token_id}`));
      if (!res.body.next_page_params) break;
      expect(res.body.next_page_params.token_id).toMatch(/^\d+$/);
      query = res.body.next_page_params;
    }
    const expected = Array.from({ length: 60 }, (_, i) => ({ h: HOLDERS[i % 3]!, id: 1000 + i }))
      .sort((a, b) => byAddressDesc(a.h, b.h) || b.id - a.id)
      .map((x) => `${x.h}:${x.id}`);
    expect(seen).toEqual(expected);
  });

  it('ERC-20 next_page_params carry no token_id', async () => {
    const res = await holders(TOKENS.distinct, { items_count: 2 });
    expect(res.body.next_page_params).not.toHaveProperty('token_id');
  });

  it('zero balances and the burn address are excluded; dead addresses are listed; uint256 exact', async () => {
    const res = await holders(TOKENS.mixed);
    assertWire(holdersPageSchema, res.body);
    const rows = res.body.items.map((i: any) => [i.address.hash.toLowerCase(), i.value]);
    expect(rows).toEqual([
      [HOLDERS[1], (2n ** 256n - 1n).toString()],
      [DEAD, '5'],
    ]);
  });

  it('address objects: checksummed hashes, what is known filled in, unknown is_verified null', async () => {
    const res = await holders(TOKENS.decorated);
    const [plain, known] = res.body.items;
    expect(plain.address.hash).not.toBe(plain.address.hash.toLowerCase());
    expect(plain.address.is_verified).toBeNull();
    expect(plain.address.metadata).toBeNull();
    expect(plain.address.reputation).toBe('ok');
    expect(known.address).toMatchObject({
      name: 'Proxy',
      ens_domain_name: 'holder.eth',
      is_contract: true,
      is_verified: false,
      proxy_type: 'eip1967',
      public_tags: [{ address_hash: known.address.hash, display_name: 'Hot wallet', label: 'hot-wallet' }],
      metadata: { tags: [{ name: 'Exchange', slug: 'exchange', ordinal: 1, tagType: 'generic', meta: { tooltipUrl: 'https://example.org' } }] },
    });
    expect(known.address.implementations).toHaveLength(1);
    expect(known.address.implementations[0].address_hash.toLowerCase()).toBe(addressOf(77, 'impl'));
    expect(known.address.implementations[0].address_hash).not.toBe(addressOf(77, 'impl'));
  });

  it('tags of an address the indexer has no row for show, and a rewritten tag replaces them', async () => {
    const { db } = api;
    const holder = HOLDERS[40]!;
    const tag = (name: string) => ({ chainId: CHAIN, address: holder, kind: 'public' as const, slug: 'fund', name, tagType: 'name', ordinal: 0, meta: {} });
    const find = async () => {
      const res = await holders(TOKENS.distinct, { items_count: 50 });
      return res.body.items.find((i: { address: { hash: string } }) => i.address.hash.toLowerCase() === holder).address;
    };
    expect((await find()).public_tags).toEqual([]);
    await upsertAddressTags(db, [tag('Fund')]);
    expect((await find()).public_tags).toEqual([{ address_hash: checksumAddress(holder), display_name: 'Fund', label: 'fund' }]);
    await upsertAddressTags(db, [tag('Fund II')]);
    expect((await find()).public_tags).toEqual([{ address_hash: checksumAddress(holder), display_name: 'Fund II', label: 'fund' }]);
  });

  it('mixed-case path hashes are accepted', async () => {
    const upper = `0x${TOKENS.distinct.slice(2).toUpperCase()}`;
    const res = await holders(upper, { items_count: 1 });
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(1);
  });
});
