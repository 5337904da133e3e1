import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import { ensureChain } from '../../src/db/queries/chains.js';
import { putBalances, upsertTokens } from '../../src/db/queries/write-tokens.js';
import { availableEngines } from '../support/databases.js';
import { startTestApi, TEST_KEY, type TestApi } from '../support/api.js';
import { addressOf } from '../support/seed.js';
import { assertWire, holdersPageSchema } from './wire-schema.js';

const CHAIN = 5;
const ADMIN_KEY = 'admin-key-0123456789abcdef';
const TOKEN = addressOf(0, 'labelled-token');
const HOLDERS = Array.from({ length: 4 }, (_, i) => addressOf(i, 'labelled'));

/** What the operator imports: the expected page content is read from these, not from our code. */
const ENTRIES = [
  {
    chain_id: CHAIN,
    address: HOLDERS[0]!,
    name: 'Binance 14',
    public_tags: [
      { display_name: 'Exchange', label: 'exchange' },
      { display_name: 'Binance', label: 'binance' },
    ],
    metadata_tags: [
      { name: 'Hot wallet', slug: 'hot-wallet', ordinal: 5, tagType: 'generic', meta: {} },
      { name: 'Binance', slug: 'binance', ordinal: 1, tagType: 'name', meta: { main_entity: 'Binance', tooltipUrl: 'https://binance.com' } },
    ],
    is_scam: false,
  },
  { chain_id: CHAIN, address: HOLDERS[1]!, name: 'Fake USDT airdrop', public_tags: [], metadata_tags: [], is_scam: true },
];

describe.each(await availableEngines())('operator labels on %s', (engine) => {
  let api: TestApi;
  const admin = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: string, contentType = 'application/json', key = ADMIN_KEY) =>
    api.app.inject({ method, url, headers: { 'x-api-key': key, ...(body !== undefined ? { 'content-type': contentType } : {}) }, ...(body !== undefined ? { payload: body } : {}) });
  const page = async () => {
    const res = await api.get(`/${CHAIN}/api/v2/tokens/${TOKEN}/holders`);
    expect(res.status).toBe(200);
    assertWire(holdersPageSchema, res.body);
    return new Map<string, any>(res.body.items.map((i: any) => [i.address.hash.toLowerCase(), i.address]));
  };
  const listed = async () => (await admin('GET', `/api/v2/admin/labels?chain_id=${CHAIN}`)).json().items;

  beforeAll(async () => {
    api = await startTestApi(engine, { api: { adminKeys: [ADMIN_KEY] } });
    await ensureChain(api.db, CHAIN);
    await upsertTokens(api.db, [{ chainId: CHAIN, address: TOKEN, type: 'ERC-20', name: null, symbol: null, decimals: null, totalSupply: null }]);
    await putBalances(api.db, HOLDERS.map((holder, i) => ({ chainId: CHAIN, token: TOKEN, holder, tokenId: null, value: BigInt(100 - i), blockNumber: 1n })));
  });
  afterAll(() => api?.close());

  it('an import shows on the holders page: name, public tags in order, metadata tags by ordinal, scam flag', async () => {
    const res = await admin('POST', '/api/v2/admin/labels', JSON.stringify(ENTRIES, null, 2));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ imported: 2 });
    const addresses = await page();
    const exchange = addresses.get(HOLDERS[0]!);
    expect(exchange.name).toBe('Binance 14');
    expect(exchange.public_tags).toEqual(
      ENTRIES[0]!.public_tags.map((t) => ({ address_hash: getAddress(HOLDERS[0]!), display_name: t.display_name, label: t.label })),
    );
    const byOrdinal = [...ENTRIES[0]!.metadata_tags].sort((a, b) => a.ordinal - b.ordinal);
    expect(exchange.metadata).toEqual({ tags: byOrdinal });
    expect([exchange.is_scam, exchange.reputation]).toEqual([false, 'ok']);
    const scam = addresses.get(HOLDERS[1]!);
    expect([scam.name, scam.is_scam, scam.reputation, scam.metadata, scam.public_tags]).toEqual(['Fake USDT airdrop', true, 'scam', null, []]);
    const plain = addresses.get(HOLDERS[2]!);
    expect([plain.name, plain.is_scam, plain.reputation, plain.metadata]).toEqual([null, false, 'ok', null]);
  });

  it('text that JSON escapes arrives as imported, on the holders page (spliced tags) and the address page (parsed)', async () => {
    // the tags travel as the JSON the database rendered: quotes, backslashes, newlines, non-ASCII
    // and text that looks like the view's address_hash slot must come out as they went in
    const odd = 'say "hi" \\ back\nslash \u00e9\u{1F600}\u2028 {"address_hash":null,"x":1}';
    const entry = {
      chain_id: CHAIN,
      address: HOLDERS[3]!,
      name: odd,
      public_tags: [{ display_name: odd, label: 'odd"slug' }],
      metadata_tags: [{ name: odd, slug: 'odd', ordinal: -3, tagType: 'name', meta: { note: odd, '"k"': '\\' } }],
      is_scam: false,
    };
    expect((await admin('POST', '/api/v2/admin/labels', JSON.stringify([entry]))).statusCode).toBe(200);
    const expected = {
      name: odd,
      public_tags: [{ address_hash: getAddress(HOLDERS[3]!), display_name: odd, label: 'odd"slug' }],
      metadata: { tags: entry.metadata_tags },
    };
    const onPage = (await page()).get(HOLDERS[3]!);
    expect({ name: onPage.name, public_tags: onPage.public_tags, metadata: onPage.metadata }).toEqual(expected);
    const res = await api.get(`/${CHAIN}/api/v2/addresses/${HOLDERS[3]}`);
    expect(res.status).toBe(200);
    expect({ name: res.body.name, public_tags: res.body.public_tags, metadata: res.body.metadata }).toEqual(expected);
    expect((await admin('DELETE', `/api/v2/admin/labels/${CHAIN}/${HOLDERS[3]}`)).statusCode).toBe(200);
  });

  it('lists what was imported in the import form, and importing it again changes nothing', async () => {
    const before = await listed();
    // stored metadata tags come back in their ordinal order
    const expected = ENTRIES.map((e) => ({ ...e, address: e.address.toLowerCase(), metadata_tags: [...e.metadata_tags].sort((a, b) => a.ordinal - b.ordinal) }));
    expect(before).toEqual(expected.sort((a, b) => (a.address < b.address ? -1 : 1)));
    const pageBefore = await page();
    expect((await admin('POST', '/api/v2/admin/labels', JSON.stringify(before))).statusCode).toBe(200);
    expect(await listed()).toEqual(before);
    expect(await page()).toEqual(pageBefore);
  });

  it('a malformed file is rejected whole, with the line of the bad entry, JSON and CSV', async () => {
    const before = await listed();
    const good = { chain_id: CHAIN, address: HOLDERS[3], name: 'would be new' };
    const changed = { ...ENTRIES[1], name: 'renamed' };
    // one entry per line: the bad one (a public tag without its label) is on line 4
    const json = ['[', JSON.stringify(good) + ',', JSON.stringify(changed) + ',', JSON.stringify({ chain_id: CHAIN, address: HOLDERS[2], public_tags: [{ display_name: 'x' }] }), ']'].join('\n');
    const res = await admin('POST', '/api/v2/admin/labels', json);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].detail).toMatch(/^line 4: public_tags\/0/);
    const broken = ['[', JSON.stringify(good) + ',', '{"chain_id": 5, "address": }', ']'].join('\n');
    expect((await admin('POST', '/api/v2/admin/labels', broken)).json().errors[0].detail).toMatch(/^line 3: not valid JSON/);
    const csv = [
      'chain_id,address,name,is_scam,public_tags',
      `${CHAIN},${HOLDERS[3]},"a name, with a comma",false,`,
      `${CHAIN},${HOLDERS[2]},x,maybe,`,
    ].join('\n');
    const csvRes = await admin('POST', '/api/v2/admin/labels', csv, 'text/csv');
    expect(csvRes.statusCode).toBe(422);
    expect(csvRes.json().errors[0].detail).toMatch(/^line 3: is_scam/);
    // PostgreSQL text holds no NUL: refused with its line, not a 500
    const nul = ['[', JSON.stringify(good) + ',', JSON.stringify({ chain_id: CHAIN, address: HOLDERS[2], name: 'a\u0000b' }), ']'].join('\n');
    const nulRes = await admin('POST', '/api/v2/admin/labels', nul);
    expect([nulRes.statusCode, nulRes.json().errors[0].detail]).toEqual([422, expect.stringMatching(/^line 3: name/)]);
    const twice = [JSON.stringify([good, good])].join('');
    expect((await admin('POST', '/api/v2/admin/labels', twice)).json().errors[0].detail).toMatch(/already labelled on line 1/);
    expect(await listed()).toEqual(before);
  });

  it('CSV with quoted JSON tag cells imports like JSON', async () => {
    const tags = [{ display_name: 'Bridge, L2', label: 'bridge' }];
    const cell = (v: unknown) => `"${JSON.stringify(v).replace(/"/g, '""')}"`;
    const csv = `chain_id,address,name,is_scam,public_tags,metadata_tags\n${CHAIN},${HOLDERS[3]},"Bridge ""Main""",no,${cell(tags)},${cell([{ name: 'L2', slug: 'l2' }])}\n`;
    const res = await admin('POST', '/api/v2/admin/labels', csv, 'text/csv');
    expect(res.statusCode, res.body).toBe(200);
    const bridge = (await page()).get(HOLDERS[3]!);
    expect(bridge.name).toBe('Bridge "Main"');
    expect(bridge.public_tags.map((t: any) => [t.display_name, t.label])).toEqual([['Bridge, L2', 'bridge']]);
    expect(bridge.metadata).toEqual({ tags: [{ name: 'L2', slug: 'l2', ordinal: 0, tagType: 'generic', meta: {} }] });
  });

  it('remove takes name, tags and scam flag off the page', async () => {
    for (const h of [HOLDERS[1]!, HOLDERS[3]!]) expect((await admin('DELETE', `/api/v2/admin/labels/${CHAIN}/${h}`)).statusCode).toBe(200);
    expect((await admin('DELETE', `/api/v2/admin/labels/${CHAIN}/${HOLDERS[3]}`)).statusCode).toBe(404);
    const addresses = await page();
    for (const h of [HOLDERS[1]!, HOLDERS[3]!]) {
      const a = addresses.get(h);
      expect([a.name, a.is_scam, a.reputation, a.metadata, a.public_tags]).toEqual([null, false, 'ok', null, []]);
    }
    expect((await listed()).map((e: any) => e.address)).toEqual([HOLDERS[0]!.toLowerCase()]);
  });

  it('every admin route refuses a missing key (401) and any non-admin key, a valid API key included (403)', async () => {
    const routes: Array<['GET' | 'POST' | 'DELETE', string, string?]> = [
      ['GET', '/api/v2/admin/labels'],
      ['POST', '/api/v2/admin/labels', '[]'],
      ['DELETE', `/api/v2/admin/labels/${CHAIN}/${HOLDERS[0]}`],
    ];
    for (const [method, url, body] of routes) {
      const none = await api.app.inject({ method, url, ...(body ? { payload: body, headers: { 'content-type': 'application/json' } } : {}) });
      expect([method, url, none.statusCode]).toEqual([method, url, 401]);
      for (const key of [TEST_KEY, 'not-a-key-of-anyone-000000']) {
        expect([method, url, (await admin(method, url, body, 'application/json', key)).statusCode]).toEqual([method, url, 403]);
      }
      // no key in the URL at all, an admin key included (admin-keys.test.ts)
      const viaQuery = await api.app.inject({ method, url: `${url}?apikey=${TEST_KEY}`, ...(body ? { payload: body, headers: { 'content-type': 'application/json' } } : {}) });
      expect(viaQuery.statusCode).toBe(401);
    }
    // and the admin key is no API key
    const asApiKey = await api.app.inject({ url: `/${CHAIN}/api/v2/tokens/${TOKEN}/holders`, headers: { 'x-api-key': ADMIN_KEY } });
    expect(asApiKey.statusCode).toBe(401);
    expect((await listed()).length).toBe(1);
  });
});
