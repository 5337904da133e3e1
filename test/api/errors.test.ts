import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureChain } from '../../src/db/queries/chains.js';
import { upsertTokens } from '../../src/db/queries/write-tokens.js';
import { openDatabase } from '../../src/db/client.js';
import { availableEngines } from '../support/databases.js';
import { startTestApi, TEST_KEY, type TestApi } from '../support/api.js';
import { addressOf } from '../support/seed.js';
import { assertWire, messageSchema, validationSchema } from './wire-schema.js';

const CHAIN = 5;
const TOKEN = addressOf(1, 'token');
const MINER = addressOf(1, 'miner');
const HASH_DETAIL = 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{40})$/';
const holdersPath = (t: string = TOKEN) => `/${CHAIN}/api/v2/tokens/${t}/holders`;
const blocksPath = (a: string = MINER) => `/${CHAIN}/api/v2/addresses/${a}/blocks-validated`;
const TOO_LONG = 'String length is larger than maxLength: 256';
const invalid = (pointer: string, detail: string) => ({ errors: [{ title: 'Invalid value', source: { pointer }, detail }] });

describe.each(await availableEngines())('errors on %s', (engine) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(engine);
    await ensureChain(api.db, CHAIN);
    await upsertTokens(api.db, [{ chainId: CHAIN, address: TOKEN, type: 'ERC-20', name: null, symbol: null, decimals: null, totalSupply: null }]);
  });
  afterAll(() => api?.close());

  const cases: Array<[string, string, Record<string, string | number>, unknown]> = [
    ['0x path hash', holdersPath('0x'), {}, invalid('/address_hash_param', HASH_DETAIL)],
    ['0X prefix', holdersPath(`0X${TOKEN.slice(2)}`), {}, invalid('/address_hash_param', HASH_DETAIL)],
    ['41 hex digits', blocksPath(`${MINER}a`), {}, invalid('/address_hash_param', HASH_DETAIL)],
    ['very long path hash', blocksPath(`0x${'a'.repeat(1500)}`), {}, invalid('/address_hash_param', HASH_DETAIL)],
    ['items_count=51', holdersPath(), { items_count: 51 }, invalid('/items_count', '51 is larger than inclusive maximum 50')],
    ['items_count=0', blocksPath(), { items_count: 0 }, invalid('/items_count', '0 is smaller than inclusive minimum 1')],
    ['items_count=abc', blocksPath(), { items_count: 'abc' }, invalid('/items_count', 'Invalid integer. Got: string')],
    ['block_number=abc', blocksPath(), { block_number: 'abc' }, invalid('/block_number', 'Invalid integer. Got: string')],
    ['block_number=-1', blocksPath(), { block_number: -1 }, invalid('/block_number', '-1 is smaller than inclusive minimum 0')],
    ['bad address_hash', holdersPath(), { address_hash: '0x12', value: '1' }, invalid('/address_hash', HASH_DETAIL)],
    ['unknown parameter', holdersPath(), { foo: 'bar' }, invalid('/foo', 'Unexpected field: foo')],
    ['token_id on blocks', blocksPath(), { token_id: '1' }, invalid('/token_id', 'Unexpected field: token_id')],
    // holders take block_number since the history (a past block's snapshot): its bad values are refused alike
    ['block_number=abc on holders', holdersPath(), { block_number: 'abc' }, invalid('/block_number', 'Invalid integer. Got: string')],
    ['block_number=-1 on holders', holdersPath(), { block_number: -1 }, invalid('/block_number', '-1 is smaller than inclusive minimum 0')],
    // an integer is decimal text as the reference reads it (Integer.parse of the whole value), not
    // whatever Number() makes of it, and a bound names the number sent, not its double
    ...['0x10', '1e1', '10.0', ' 10', '10 ', '', '1_0', 'Infinity'].flatMap((text): Array<[string, string, Record<string, string>, unknown]> => [
      [`block_number=${JSON.stringify(text)} on holders`, holdersPath(), { block_number: text }, invalid('/block_number', 'Invalid integer. Got: string')],
      [`block_number=${JSON.stringify(text)} on blocks`, blocksPath(), { block_number: text }, invalid('/block_number', 'Invalid integer. Got: string')],
      [`items_count=${JSON.stringify(text)}`, blocksPath(), { items_count: text }, invalid('/items_count', 'Invalid integer. Got: string')],
    ]),
    ['block_number past 2^53 on holders', holdersPath(), { block_number: '9007199254740993' }, invalid('/block_number', '9007199254740993 is larger than inclusive maximum 9007199254740991')],
    ['block_number of 20 digits on blocks', blocksPath(), { block_number: '99999999999999999999' }, invalid('/block_number', '99999999999999999999 is larger than inclusive maximum 9007199254740991')],
    ['items_count=051', holdersPath(), { items_count: '051' }, invalid('/items_count', '51 is larger than inclusive maximum 50')],
    ['items_count=-0001', holdersPath(), { items_count: '-0001' }, invalid('/items_count', '-1 is smaller than inclusive minimum 1')],
    // Length limits (README, Limits): every query value at most 256 characters.
    ['a 257-character key on holders', holdersPath(), { key: 'k'.repeat(257) }, invalid('/key', TOO_LONG)],
    ['an 8 KB key on blocks-validated', blocksPath(), { key: 'k'.repeat(8_192) }, invalid('/key', TOO_LONG)],
    ['items_count of 300 characters', blocksPath(), { items_count: `${'0'.repeat(299)}5` }, invalid('/items_count', TOO_LONG)],
    ['a long unknown parameter', holdersPath(), { foo: 'x'.repeat(300) }, invalid('/foo', TOO_LONG)],
  ];
  it.each(cases)('422 for %s', async (_name, path, query, expected) => {
    const res = await api.get(path, query);
    expect(res.status).toBe(422);
    expect(res.body).toEqual(expected);
    assertWire(validationSchema, res.body);
  });

  it('an integer with a sign or leading zeros is read as the reference reads it', async () => {
    for (const items of ['+2', '002']) {
      const res = await api.get(blocksPath(), { items_count: items, block_number: '+0010' });
      expect(res.status, items).toBe(200);
      expect(res.body).toEqual({ items: [], next_page_params: null });
    }
  });

  it('a key of exactly 256 characters is accepted', async () => {
    const res = await api.get(blocksPath(), { key: 'k'.repeat(256) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [], next_page_params: null });
  });

  it('422 for a value that is not an integer string, summary first', async () => {
    for (const value of ['01', '1.5', 'abc', '--1', ' 1']) {
      const res = await api.get(holdersPath(), { value, address_hash: MINER });
      expect(res.status).toBe(422);
      assertWire(validationSchema, res.body);
      expect(res.body.errors[0].source.pointer).toBe('/value');
      expect(res.body.errors[0].detail).toMatch(/^Failed to cast value using any of/);
    }
  });

  it('a negative value is accepted (pattern allows it) and pages past everything', async () => {
    const res = await api.get(holdersPath(), { value: '-5', address_hash: MINER });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [], next_page_params: null });
  });

  it('404 for an unknown or malformed chain id, and for unknown paths', async () => {
    for (const path of [`/999/api/v2/tokens/${TOKEN}/holders`, `/abc/api/v2/tokens/${TOKEN}/holders`, `/0/api/v2/addresses/${MINER}/blocks-validated`, `/${CHAIN}/api/v2/nothing`]) {
      const res = await api.get(path);
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ message: 'Not found' });
    }
  });

  it('401 without a key or with a wrong one, with rate-limit headers', async () => {
    for (const url of [holdersPath(), `${holdersPath()}?apikey=wrong`, `${holdersPath()}?apikey=`]) {
      const res = await api.app.inject(url);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ message: 'Invalid or missing API key' });
      assertWire(messageSchema, res.json());
      expect(res.headers['x-ratelimit-limit']).toBeDefined();
    }
  });

  it('the key is read from apikey, x-api-key and Authorization: Bearer', async () => {
    const viaHeader = await api.app.inject({ url: blocksPath(), headers: { 'x-api-key': TEST_KEY } });
    const viaBearer = await api.app.inject({ url: blocksPath(), headers: { authorization: `Bearer ${TEST_KEY}` } });
    const viaQuery = await api.app.inject({ url: `${blocksPath()}?apikey=${TEST_KEY}` });
    expect([viaHeader.statusCode, viaBearer.statusCode, viaQuery.statusCode]).toEqual([200, 200, 200]);
  });

  it('every response carries x-ratelimit-* with the reset in milliseconds', async () => {
    for (const [path, query] of [[holdersPath(), {}], [holdersPath('0x'), {}], [`/999/api/v2/tokens/${TOKEN}/holders`, {}]] as const) {
      const res = await api.get(path, query);
      expect(Number(res.headers['x-ratelimit-limit'])).toBe(100_000);
      expect(Number(res.headers['x-ratelimit-remaining'])).toBeGreaterThanOrEqual(0);
      const reset = Number(res.headers['x-ratelimit-reset']);
      expect(reset).toBeGreaterThan(0);
      expect(reset).toBeLessThanOrEqual(1_000);
    }
  });

  it('a database outage is 503 Service unavailable, without internals', async () => {
    const broken = await openDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none' });
    const down = await startTestApi(engine, { db: broken });
    const res = await down.get(holdersPath());
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ message: 'Service unavailable' });
    await down.app.close();
    await broken.close();
  });
});
