import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import type { Hex } from '../../src/db/rows.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { putBalances, upsertTokens } from '../../src/db/queries/write-tokens.js';
import { applyBlockChanges, type BlockDelta } from '../../src/db/queries/write-balances.js';
import { BalanceSum } from '../../src/indexer/balance-sum.js';
import { availableEngines } from '../support/databases.js';
import { startTestApi, TEST_KEY, type TestApi } from '../support/api.js';
import { addressOf } from '../support/seed.js';
import { assertWire, messageSchema, validationSchema } from './wire-schema.js';

const CHAIN = 1;
const USD = addressOf(0, 'token:usd');
const BARE = addressOf(0, 'token:bare');
const SECRET = addressOf(0, 'token:secret');

// The reference's recorded token object: the key set and value types to match.
const fixture = JSON.parse(
  JSON.parse(
    readFileSync(
      new URL('../../../shared/fixtures/real/blockscout-eth-api-v2/api_v2_tokens_0xD4416b13d2b3a9aBae7AcD5D6C2BbDBE25686401.json', import.meta.url),
      'utf8',
    ),
  ).response.body,
) as Record<string, unknown>;

const nstr = { type: ['string', 'null'] };
const count = { type: 'string', pattern: '^(0|[1-9][0-9]*)$' };
const ZERO = '0x0000000000000000000000000000000000000000' as Hex;
const tokenSchema = {
  type: 'object',
  additionalProperties: false,
  required: Object.keys(fixture),
  properties: {
    address: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
    address_hash: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
    circulating_market_cap: nstr,
    decimals: { type: ['string', 'null'], pattern: '^[0-9]+$' },
    exchange_rate: nstr,
    holders: count,
    holders_count: count,
    icon_url: nstr,
    name: nstr,
    symbol: nstr,
    total_supply: { type: ['string', 'null'], pattern: '^(0|[1-9][0-9]*)$' },
    type: { enum: ['ERC-20', 'ERC-721', 'ERC-1155'] },
    volume_24h: nstr,
  },
};

describe.each(await availableEngines())('token object on %s', (engine) => {
  let api: TestApi;
  const token = (hash: string, query: Record<string, string | number> = {}) => api.get(`/${CHAIN}/api/v2/tokens/${hash}`, query);

  beforeAll(async () => {
    api = await startTestApi(engine, { api: { restrictedKey: 'open-sesame', restrictedAddresses: [SECRET] } });
    const { db } = api;
    await ensureChain(db, CHAIN);
    await upsertTokens(db, [
      { chainId: CHAIN, address: USD, type: 'ERC-20', name: 'Test USD', symbol: 'TUSD', decimals: 6, totalSupply: 2n ** 200n },
      { chainId: CHAIN, address: BARE, type: 'ERC-1155', name: null, symbol: null, decimals: null, totalSupply: null },
      { chainId: CHAIN, address: SECRET, type: 'ERC-20', name: 'S', symbol: 'S', decimals: 18, totalSupply: 1n },
    ]);
    const balance = (holder: number, value: bigint) => ({
      chainId: CHAIN, token: USD, holder: addressOf(holder), tokenId: null, value, blockNumber: 1n,
    });
    await putBalances(db, [
      balance(1, 5n), balance(2, 7n), balance(3, 0n),
      { ...balance(0, 9n), holder: '0x0000000000000000000000000000000000000000' as Hex },
    ]);
  });
  afterAll(() => api?.close());

  it('the reference shape: all thirteen fields, counts and big numbers as strings', async () => {
    const res = await token(USD);
    expect(res.status).toBe(200);
    assertWire(tokenSchema, res.body);
    expect(Object.keys(res.body).sort()).toEqual(Object.keys(fixture).sort());
    expect(res.body).toEqual({
      address: getAddress(USD),
      address_hash: getAddress(USD),
      circulating_market_cap: null,
      decimals: '6',
      exchange_rate: null,
      // zero balances and the burn address are not holders
      holders: '2',
      holders_count: '2',
      icon_url: null,
      name: 'Test USD',
      symbol: 'TUSD',
      // the holders' balances (5 + 7; the burn address's 9 is burnt), kept as mints and burns are
      // indexed; the contract's own answer (2^200 when its metadata was read) only says it has one
      total_supply: '12',
      type: 'ERC-20',
      volume_24h: null,
    });
  });

  it('total_supply follows mints and burns indexed after the metadata was read', async () => {
    const mint: BlockDelta[] = [
      { token: USD, holder: addressOf(4), tokenId: null, delta: 30n, blockNumber: 2n },
      { token: USD, holder: ZERO, tokenId: null, delta: -30n, blockNumber: 2n },
    ];
    const burn: BlockDelta[] = [
      { token: USD, holder: addressOf(1), tokenId: null, delta: -5n, blockNumber: 3n },
      { token: USD, holder: ZERO, tokenId: null, delta: 5n, blockNumber: 3n },
    ];
    await applyBlockChanges(api.db, CHAIN, BalanceSum.of(mint).changed());
    expect((await token(USD)).body.total_supply).toBe('42');
    await applyBlockChanges(api.db, CHAIN, BalanceSum.of(burn).changed());
    const after = await token(USD);
    expect(after.body.total_supply).toBe('37');
    expect(after.body.holders_count).toBe('2');
    // the Etherscan-style supply is the same number
    const supply = await api.get(`/${CHAIN}/api`, { module: 'stats', action: 'tokensupply', contractaddress: USD });
    expect(supply.body.result).toBe('37');
  });

  it('unknown metadata stays null, as the reference sends it (its fixture: an ERC-1155 without decimals)', async () => {
    // upper-case hex is accepted, as everywhere
    const res = await token(`0x${BARE.slice(2).toUpperCase()}`);
    expect(res.status).toBe(200);
    assertWire(tokenSchema, res.body);
    expect(res.body).toMatchObject({ decimals: null, name: null, symbol: null, total_supply: null, holders_count: '0', type: 'ERC-1155' });
  });

  it('unknown token: 404 Not found; unknown chain: 404', async () => {
    for (const path of [`/${CHAIN}/api/v2/tokens/${addressOf(5, 'nothing')}`, `/999/api/v2/tokens/${USD}`]) {
      const res = await api.get(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Not found' });
      assertWire(messageSchema, res.body);
    }
  });

  it('keyed like the data routes: 401 without a key, header key accepted', async () => {
    const none = await api.app.inject({ method: 'GET', url: `/${CHAIN}/api/v2/tokens/${USD}` });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ message: 'Invalid or missing API key' });
    const header = await api.app.inject({ method: 'GET', url: `/${CHAIN}/api/v2/tokens/${USD}`, headers: { 'x-api-key': TEST_KEY } });
    expect(header.statusCode).toBe(200);
  });

  it('422 for a bad hash and for paging parameters it does not take', async () => {
    const bad = await token('0x1234');
    expect(bad.status).toBe(422);
    assertWire(validationSchema, bad.body);
    expect(bad.body.errors[0].source.pointer).toBe('/address_hash_param');
    const extra = await token(USD, { items_count: 5 });
    expect(extra.status).toBe(422);
    expect(extra.body.errors[0].detail).toBe('Unexpected field: items_count');
  });

  it('a restricted token: 403 without the secret, 200 with it', async () => {
    expect((await token(SECRET)).status).toBe(403);
    expect((await token(SECRET, { key: 'open-sesame' })).status).toBe(200);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await api.app.inject({ method: 'GET', url: '/api/v2/openapi.json' })).json();
    expect(doc.paths).toHaveProperty(['/{chain_id}/api/v2/tokens/{address_hash_param}']);
  });
});
