import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from '../../src/db/rows.js';
import type { BlockRow } from '../../src/db/model/block.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { createApiKey } from '../../src/db/queries/api-keys.js';
import { putBalances, upsertTokens } from '../../src/db/queries/write-tokens.js';
import { upsertBlocks } from '../../src/db/queries/write-blocks.js';
import { availableEngines } from '../support/databases.js';
import { startTestApi, TEST_KEY, type TestApi } from '../support/api.js';
import { addressOf, blockRow, byHoldersOrder, hashOf } from '../support/seed.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ACTIONS_END, ACTIONS_START, renderActionsTable } from '../../src/api/routes/etherscan/actions-table.js';
import { REPO_ROOT } from '../support/contracts.js';
import { DEEP_PAGE_GATE, deepPageGate } from '../../src/db/queries/read-gate.js';

const CHAIN = 11;
const TOKEN = addressOf(1, 'es-token');
const MULTI = addressOf(2, 'es-token');
const EMPTY = addressOf(3, 'es-token');
const RESTRICTED = addressOf(4, 'es-token');
const MINER = addressOf(1, 'es-miner');
const OTHER_MINER = addressOf(2, 'es-miner');
const FUND = addressOf(3, 'es-fund');
const SECRET = 'es-secret';
const notOk = (result: string) => ({ status: '0', message: 'NOTOK', result });
const CHAIN_TEXT = 'Missing or unsupported chainid parameter (required for v2 api), please see chainlist for the list of supported chainids';
const WINDOW_TEXT = 'Result window is too large, PageNo x Offset size must be less than or equal to 10000';

// 25 holders; values repeat so the address tie-breaker matters
const HOLDERS = Array.from({ length: 25 }, (_, i) => ({ holder: addressOf(i, 'es-holder'), value: BigInt((i % 7) + 1) * 10n ** 18n }));
const RANKED = [...HOLDERS].sort(byHoldersOrder).map((h) => ({ TokenHolderAddress: h.holder, TokenHolderQuantity: h.value.toString() }));

// Blocks 100…114 by MINER, with an emission-fund entry to someone else; 115…119 by another miner.
const reward = (n: number) => 2n * 10n ** 18n + BigInt(n) * 1_000n;
const minedRows: BlockRow[] = Array.from({ length: 20 }, (_, i) => {
  const n = 100 + i;
  const miner = n < 115 ? MINER : OTHER_MINER;
  return blockRow(CHAIN, n, miner, {
    rewards: [
      { type: 'validator', reward: reward(n), address: miner },
      { type: 'emission_funds', reward: 5n, address: FUND },
    ],
  });
});
// A reorged-out block by MINER at 120: not listed as a block, nor as an uncle.
const reorged = blockRow(CHAIN, 120, MINER, { hash: hashOf(120, 'es-reorged'), consensus: false });
// Two uncles by MINER at 103 and 107, included two heights later with their uncle rewards.
const UNCLE_REWARD = { 103: 1_750_000_000_000_000_000n, 107: 1_500_000_000_000_000_000n } as const;
const uncles = [103, 107].map((n) =>
  blockRow(CHAIN, n, MINER, { hash: hashOf(n, 'es-uncle'), consensus: false, isUncle: true, rewards: [] }),
);
for (const uncle of uncles) {
  const including = minedRows.find((b) => b.number === uncle.number + 2n)!;
  including.uncleHashes = [uncle.hash];
  including.rewards.push({ type: 'uncle', reward: UNCLE_REWARD[Number(uncle.number) as 103 | 107], address: MINER });
}
// Uncle rewards to MINER for uncles not in the table, in every third other block: never part
// of that block's reward.
for (const b of minedRows.filter((b) => b.miner === MINER && b.number % 3n === 0n && b.uncleHashes.length === 0)) {
  b.rewards.push({ type: 'uncle', reward: 999n, address: MINER });
}

// OWNER holds 7 ERC-20s (one of them at zero) and 3 ERC-721 collections
const OWNER = addressOf(1, 'es-owner');
const HELD = Array.from({ length: 10 }, (_, i) => ({
  token: addressOf(i, 'es-held'),
  type: (i < 7 ? 'ERC-20' : 'ERC-721') as 'ERC-20' | 'ERC-721',
  name: i === 3 ? null : `Held ${i}`,
  symbol: i === 3 ? null : `H${i}`,
  decimals: i < 7 ? (i === 3 ? null : 6 + i) : null,
  value: i === 5 ? 0n : BigInt(i + 1) * 10n ** 15n,
}));
const byAddress = [...HELD].sort((a, b) => (a.token < b.token ? -1 : 1));
const erc20Rows = byAddress
  .filter((h) => h.type === 'ERC-20' && h.value > 0n)
  .map((h) => ({
    TokenAddress: h.token,
    TokenName: h.name ?? '',
    TokenSymbol: h.symbol ?? '',
    TokenQuantity: h.value.toString(),
    TokenDivisor: String(h.decimals ?? 0),
    TokenPriceUSD: '0.0000000000',
  }));
const nftRows = byAddress
  .filter((h) => h.type === 'ERC-721')
  .map((h) => ({ TokenAddress: h.token, TokenName: h.name, TokenSymbol: h.symbol, TokenQuantity: h.value.toString() }));

describe.each(await availableEngines())('Etherscan-style API on %s', (engine) => {
  let api: TestApi;
  const call = (query: Record<string, string | number>) => api.get(`/${CHAIN}/api`, query);

  beforeAll(async () => {
    api = await startTestApi(engine, { api: { restrictedKey: SECRET, restrictedAddresses: [RESTRICTED] } });
    const { db } = api;
    await ensureChain(db, CHAIN);
    const token = (address: Hex, type: 'ERC-20' | 'ERC-1155') => ({
      chainId: CHAIN, address, type, name: null, symbol: null, decimals: null, totalSupply: null,
    });
    await upsertTokens(db, [token(TOKEN, 'ERC-20'), token(MULTI, 'ERC-1155'), token(EMPTY, 'ERC-20'), token(RESTRICTED, 'ERC-20')]);
    const balance = (t: Hex, holder: Hex, value: bigint, tokenId: bigint | null = null) => ({
      chainId: CHAIN, token: t, holder, tokenId, value, blockNumber: 1n,
    });
    await putBalances(db, [
      ...HOLDERS.map((h) => balance(TOKEN, h.holder, h.value)),
      balance(TOKEN, '0x0000000000000000000000000000000000000000', 10n ** 30n),
      balance(TOKEN, addressOf(99, 'es-zero'), 0n),
      ...[1n, 2n, 3n].map((id) => balance(MULTI, HOLDERS[0]!.holder, 4n, id)),
      balance(RESTRICTED, HOLDERS[1]!.holder, 1n),
    ]);
    await upsertBlocks(db, [...minedRows, reorged, ...uncles]);
    await upsertTokens(db, HELD.map((h) => ({ chainId: CHAIN, address: h.token, type: h.type, name: h.name, symbol: h.symbol, decimals: h.decimals, totalSupply: 1n })));
    await putBalances(db, [
      ...HELD.map((h) => balance(h.token, OWNER, h.value)),
      // someone else's, a zero balance and the zero address's: none of them OWNER's holdings
      balance(HELD[0]!.token, HOLDERS[2]!.holder, 5n),
      balance(HELD[1]!.token, '0x0000000000000000000000000000000000000000', 10n ** 30n),
    ]);
  });
  afterAll(() => api?.close());

  describe('tokenholderlist', () => {
    const list = (extra: Record<string, string | number> = {}) =>
      call({ module: 'token', action: 'tokenholderlist', contractaddress: TOKEN, ...extra });

    it('richest first, paged by page and offset', async () => {
      const pages = await Promise.all([1, 2, 3].map((page) => list({ page, offset: 10 })));
      for (const page of pages) {
        expect(page.status).toBe(200);
        expect(page.body.status).toBe('1');
        expect(page.body.message).toBe('OK');
      }
      expect(pages.flatMap((p) => p.body.result)).toEqual(RANKED);
      expect(pages[2]!.body.result).toHaveLength(5);
    });

    it('without page and offset: the first 10,000 rows, i.e. all of them here', async () => {
      expect((await list()).body).toEqual({ status: '1', message: 'OK', result: RANKED });
    });

    it('a mixed-case contract address works the same', async () => {
      const res = await list({ contractaddress: `0x${TOKEN.slice(2).toUpperCase()}`, page: 1, offset: 3 });
      expect(res.body.result).toEqual(RANKED.slice(0, 3));
    });

    it('past the data, and for an unknown or empty token: status 0, empty result', async () => {
      const expected = { status: '0', message: 'No records found', result: [] };
      expect((await list({ page: 4, offset: 10 })).body).toEqual(expected);
      expect((await list({ contractaddress: EMPTY })).body).toEqual(expected);
      expect((await list({ contractaddress: addressOf(5, 'nothing') })).body).toEqual(expected);
    });

    it('ERC-1155: one row per holder and token id, which it names (equal values: ids descending, as the v2 list)', async () => {
      const res = await list({ contractaddress: MULTI });
      expect(res.body.result).toEqual(['3', '2', '1'].map((id) => ({ TokenHolderAddress: HOLDERS[0]!.holder, TokenHolderQuantity: '4', TokenId: id })));
    });

    it('any page may be read, at most 10,000 rows each; asc reverses the order', async () => {
      // (the page size is what is wrong where any page may be read: not the window's text)
      expect((await list({ page: 1, offset: 10001 })).body).toEqual({ status: '0', message: 'NOTOK', result: 'Error! Invalid offset' });
      expect((await list({ page: 1, offset: 10000 })).body.status).toBe('1');
      const pastTheEnd: Array<Record<string, number>> = [{ page: 2, offset: 5001 }, { page: 10001, offset: 1 }, { page: 2 }, { page: 999999999, offset: 10000 }];
      for (const query of pastTheEnd) {
        expect((await list(query)).body).toEqual({ status: '0', message: 'No records found', result: [] });
      }
      expect((await list({ page: 25, offset: 1 })).body.result).toEqual(RANKED.slice(24));
      expect((await list({ page: 3, offset: 4, sort: 'asc' })).body.result).toEqual([...RANKED].reverse().slice(8, 12));
      expect((await list({ sort: 'DESC' })).body.result).toEqual(RANKED);
      expect((await list({ sort: 'up' })).body).toEqual({ status: '0', message: 'NOTOK', result: 'Error! Invalid sort order' });
    });

    it('a page past the first 10,000 rows waits at the deep-page gate: busy (503, Retry-After) when it is full, while pages within it are served', async () => {
      let release!: () => void;
      const holding = new Promise<void>((resolve) => (release = resolve));
      const held = Array.from({ length: DEEP_PAGE_GATE.concurrency + DEEP_PAGE_GATE.waiting }, (_, i) => deepPageGate.run({}, `held ${i}`, () => holding));
      // ERC-1155 (no holder count bounds its rows) and an address's holdings reach the database at any depth
      const deep = [
        () => list({ contractaddress: MULTI, page: 2, offset: 10000 }),
        () => list({ contractaddress: MULTI, page: 10001, offset: 1 }),
        () => call({ module: 'account', action: 'addresstokenbalance', address: HOLDERS[1]!.holder, page: 3, offset: 5000 }),
      ];
      try {
        for (const ask of deep) {
          const busy = await ask();
          expect([busy.status, busy.headers['retry-after'], busy.body]).toEqual([503, '5', notOk('Error! Service unavailable')]);
        }
        expect((await list({ contractaddress: MULTI, page: 1, offset: 10000 })).body.status).toBe('1');
        expect((await list({ page: 25, offset: 1 })).body.status).toBe('1');
      } finally {
        release();
        await Promise.all(held);
      }
      for (const ask of deep) expect((await ask()).body).toEqual({ status: '0', message: 'No records found', result: [] });
    });

    it('bad page or offset values', async () => {
      for (const page of ['0', '-1', 'abc', '1.5']) {
        expect((await list({ page, offset: 10 })).body).toEqual({ status: '0', message: 'NOTOK', result: 'Error! Invalid page number' });
      }
      for (const offset of ['0', 'x']) {
        expect((await list({ page: 1, offset })).body).toEqual({ status: '0', message: 'NOTOK', result: 'Error! Invalid offset' });
      }
    });

    it('a missing or malformed contract address', async () => {
      const expected = { status: '0', message: 'NOTOK', result: 'Error! Invalid contract address format' };
      expect((await call({ module: 'token', action: 'tokenholderlist' })).body).toEqual(expected);
      for (const contractaddress of ['0x12', `${TOKEN}00`, TOKEN.slice(2), `0X${TOKEN.slice(2)}`]) {
        expect((await list({ contractaddress })).body).toEqual(expected);
      }
    });
  });

  describe("the hosted explorer's own calls: getTokenHolders, getToken", () => {
    const holders = (extra: Record<string, string | number> = {}) =>
      call({ module: 'token', action: 'getTokenHolders', contractaddress: TOKEN, ...extra });
    const asRow = (r: { TokenHolderAddress: string; TokenHolderQuantity: string }) => ({ address: r.TokenHolderAddress, value: r.TokenHolderQuantity });

    it("getTokenHolders: tokenholderlist's holders as {address, value}, 10 a page by default, a page below 1 the first, no sort, an empty page status 1", async () => {
      expect((await holders()).body).toEqual({ status: '1', message: 'OK', result: RANKED.slice(0, 10).map(asRow) });
      expect((await holders({ page: 0 })).body).toEqual((await holders({ page: 1 })).body);
      expect((await holders({ page: -3 })).body).toEqual((await holders({ page: 1 })).body);
      // that call takes no sort: one sent changes nothing, as there
      for (const sort of ['asc', 'xyz']) expect((await holders({ sort, offset: 30 })).body.result).toEqual(RANKED.slice(0, 30).map(asRow));
      expect((await holders({ page: 'x' })).body).toEqual({ status: '0', message: 'NOTOK', result: 'Error! Invalid page number' });
      expect((await holders({ offset: '' })).body.result).toHaveLength(10);
      const pages = await Promise.all([1, 2, 3].map((page) => holders({ page, offset: 10 })));
      expect(pages.flatMap((p) => p.body.result)).toEqual(RANKED.map(asRow));
      expect((await holders({ page: 4, offset: 10 })).body).toEqual({ status: '1', message: 'OK', result: [] });
      // any letter case of the action, as that explorer lowercases it
      expect((await call({ module: 'token', action: 'gettokenholders', contractaddress: TOKEN, offset: 3 })).body.result).toEqual(RANKED.slice(0, 3).map(asRow));
      const multi = await holders({ contractaddress: MULTI });
      expect(multi.body.result).toEqual(['3', '2', '1'].map((tokenId) => ({ address: HOLDERS[0]!.holder, value: '4', tokenId })));
      expect((await holders({ contractaddress: '0x12' })).body).toEqual({ status: '0', message: 'NOTOK', result: 'Error! Invalid contract address format' });
      expect((await holders({ offset: 10001 })).body).toEqual({ status: '0', message: 'NOTOK', result: 'Error! Invalid offset' });
    });

    it("getToken: that explorer's fields, the supply the v2 token object serves; an unknown token refused with its text", async () => {
      const held = HELD[0]!;
      const token = await call({ module: 'token', action: 'getToken', contractaddress: held.token });
      const v2 = await api.get(`/${CHAIN}/api/v2/tokens/${held.token}`);
      expect(token.body).toEqual({
        status: '1',
        message: 'OK',
        result: { type: 'ERC-20', name: held.name, symbol: held.symbol, totalSupply: v2.body.total_supply, decimals: String(held.decimals), contractAddress: held.token, cataloged: true },
      });
      const bare = await call({ module: 'token', action: 'getToken', contractaddress: EMPTY });
      expect(bare.body.result).toMatchObject({ type: 'ERC-20', name: null, symbol: null, decimals: '', cataloged: false });
      expect((await call({ module: 'token', action: 'getToken', contractaddress: addressOf(5, 'nothing') })).body).toEqual({ status: '0', message: 'NOTOK', result: 'Contract address not found' });
    });

    it("the chain as the hosted explorer's PRO API names it (chain_id) on /v2/api and /api; chainid and chain_id sent both must agree", async () => {
      const query = { module: 'token', action: 'getTokenHolders', contractaddress: TOKEN, offset: 2 };
      for (const path of ['/v2/api', '/api']) {
        expect((await api.get(path, { chain_id: CHAIN, ...query })).body.result).toEqual(RANKED.slice(0, 2).map(asRow));
        expect((await api.get(path, { chain_id: CHAIN, chainid: CHAIN, ...query })).body.status).toBe('1');
        const disagreeing = await api.get(path, { chain_id: CHAIN, chainid: CHAIN + 1, ...query });
        expect(disagreeing.body).toEqual({ status: '0', message: 'NOTOK', result: expect.stringMatching(/^Missing or unsupported chainid parameter/) });
      }
      expect((await call({ chain_id: CHAIN + 1, ...query })).body).toEqual({ status: '0', message: 'NOTOK', result: expect.stringMatching(/^Missing or unsupported chainid parameter/) });
      expect((await call({ chain_id: CHAIN, ...query })).body.status).toBe('1');
    });
  });

  describe('tokenholdercount', () => {
    const count = (contractaddress: string) => call({ module: 'token', action: 'tokenholdercount', contractaddress });

    it('distinct positive holders, burn address and zero balances left out', async () => {
      expect((await count(TOKEN)).body).toEqual({ status: '1', message: 'OK', result: String(HOLDERS.length) });
      expect((await count(MULTI)).body.result).toBe('1');
    });

    it('"0" for an empty token or an address that is no token; NOTOK for a bad address', async () => {
      expect((await count(EMPTY)).body).toEqual({ status: '1', message: 'OK', result: '0' });
      expect((await count(addressOf(6, 'nothing'))).body.result).toBe('0');
      expect((await count('nope')).body).toEqual({ status: '0', message: 'NOTOK', result: 'Error! Invalid contract address format' });
    });
  });

  describe('getminedblocks', () => {
    const mined = (extra: Record<string, string | number> = {}) =>
      call({ module: 'account', action: 'getminedblocks', address: MINER, ...extra });
    const expectedBlocks = minedRows
      .filter((b) => b.miner === MINER)
      .sort((a, b) => Number(b.number - a.number))
      .map((b) => ({
        blockNumber: b.number.toString(),
        timeStamp: b.timestamp.toString(),
        blockReward: b.rewards.filter((r) => r.address === MINER && r.type !== 'uncle').reduce((s, r) => s + r.reward, 0n).toString(),
      }));

    it('consensus blocks, newest first, with what the miner was paid', async () => {
      const res = await mined();
      expect(res.body).toEqual({ status: '1', message: 'OK', result: expectedBlocks });
      expect(res.body.result[0].blockReward).toBe(reward(114).toString());
    });

    it('blocktype=blocks is the default; paging by page and offset', async () => {
      const pages = await Promise.all([1, 2, 3, 4].map((page) => mined({ blocktype: 'blocks', page, offset: 4 })));
      expect(pages.slice(0, 3).flatMap((p) => p.body.result)).toEqual(expectedBlocks.slice(0, 12));
      expect(pages[3]!.body.result).toEqual(expectedBlocks.slice(12));
      expect((await mined({ page: 5, offset: 4 })).body).toEqual({ status: '0', message: 'No transactions found', result: [] });
      expect((await mined({ page: 2, offset: 4, sort: 'asc' })).body.result).toEqual([...expectedBlocks].reverse().slice(4, 8));
    });

    it('blocktype=uncles: the uncles the address mined, paid from the including block', async () => {
      const res = await mined({ blocktype: 'uncles' });
      expect(res.body).toEqual({
        status: '1',
        message: 'OK',
        result: [...uncles].reverse().map((u) => ({
          blockNumber: u.number.toString(),
          timeStamp: u.timestamp.toString(),
          blockReward: UNCLE_REWARD[Number(u.number) as 103 | 107].toString(),
        })),
      });
    });

    it('an address that mined nothing; a bad address; a bad blocktype', async () => {
      expect((await mined({ address: addressOf(7, 'idle') })).body).toEqual({ status: '0', message: 'No transactions found', result: [] });
      expect((await mined({ address: addressOf(7, 'idle'), blocktype: 'uncles' })).body.status).toBe('0');
      for (const address of ['0x', 'miner', `${MINER}1`]) {
        expect((await mined({ address })).body).toEqual({ status: '0', message: 'NOTOK', result: 'Error! Invalid address format' });
      }
      expect((await mined({ blocktype: 'orphans' })).body).toEqual({ status: '0', message: 'NOTOK', result: 'Error! Invalid blocktype' });
      expect((await mined({ page: 3, offset: 5000 })).body.result).toBe(WINDOW_TEXT);
    });
  });

  describe('envelope errors, all HTTP 200', () => {

    it('module and action', async () => {
      const module = notOk('Error! Missing Or invalid Module name');
      const action = notOk('Error! Missing Or invalid Action name');
      const cases: Array<[Record<string, string>, unknown]> = [
        [{}, module],
        [{ module: 'nonsense' }, module],
        [{ module: 'stats' }, action],
        [{ module: 'contract', action: 'getabi' }, action],
        [{ module: 'account', action: 'balance' }, action],
        [{ module: 'constructor', action: 'name' }, module],
        [{ module: 'token' }, action],
        [{ module: 'token', action: 'getminedblocks' }, action],
        [{ module: 'account', action: 'toString' }, action],
      ];
      for (const [query, expected] of cases) {
        const res = await call(query);
        expect(res.status).toBe(200);
        expect(res.body).toEqual(expected);
      }
    });

    it('a parameter over 256 characters, known or not: Error! Invalid parameter', async () => {
      const long = 'x'.repeat(257);
      const queries: Array<Record<string, string>> = [{ module: long }, { module: 'token', action: 'tokenholdercount', contractaddress: TOKEN, sort: long }];
      for (const query of queries) {
        const res = await call(query);
        expect(res.status).toBe(200);
        expect(res.body).toEqual(notOk('Error! Invalid parameter'));
      }
    });

    it('a missing or wrong API key, with rate-limit headers', async () => {
      const query = 'module=token&action=tokenholdercount&contractaddress=' + TOKEN;
      for (const url of [`/${CHAIN}/api?${query}`, `/${CHAIN}/api?${query}&apikey=wrong`]) {
        const res = await api.app.inject({ url });
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual(notOk('Invalid API Key'));
        expect(res.headers['x-ratelimit-limit']).toBeDefined();
      }
      const viaHeader = await api.app.inject({ url: `/${CHAIN}/api?${query}`, headers: { 'x-api-key': TEST_KEY } });
      expect(viaHeader.json().status).toBe('1');
    });

    it("over the rate limit: that API's rate-limit text", async () => {
      const { key } = await createApiKey(api.db, 'es-slow', 1);
      const url = `/${CHAIN}/api?module=token&action=tokenholdercount&contractaddress=${TOKEN}&apikey=${key}`;
      const replies = await Promise.all(Array.from({ length: 3 }, () => api.app.inject({ url })));
      const bodies = replies.map((r) => r.json());
      expect(replies.every((r) => r.statusCode === 200)).toBe(true);
      expect(bodies.filter((b) => b.status === '1')).toHaveLength(1);
      expect(bodies.filter((b) => b.result === 'Max rate limit reached, please use API Key for higher rate limit')).toHaveLength(2);
      const limited = replies.find((r) => r.json().status === '0')!;
      expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    });

    it('guessing keys, or asking without one, past the per-address budget: that API\'s two texts', async () => {
      const strict = await startTestApi(engine, { db: api.db, api: { defaultRateLimit: 2 } });
      try {
        const base = `/${CHAIN}/api?module=token&action=tokenholdercount&contractaddress=${TOKEN}`;
        const guesses = await Promise.all(Array.from({ length: 4 }, (_, i) => strict.app.inject({ url: `${base}&apiKey=guess-${i}-abcdefgh` })));
        expect(guesses.map((r) => [r.statusCode, r.json().result])).toEqual([
          [200, 'Invalid API Key'],
          [200, 'Invalid API Key'],
          [200, 'Too many invalid api key attempts, please try again later'],
          [200, 'Too many invalid api key attempts, please try again later'],
        ]);
        const keyless = await strict.app.inject({ url: base, remoteAddress: '10.9.8.7' });
        expect(keyless.json().result).toBe('Invalid API Key');
        const over = await Promise.all(Array.from({ length: 2 }, () => strict.app.inject({ url: base, remoteAddress: '10.9.8.7' })));
        expect(over.map((r) => r.json().result)).toContain('Max rate limit reached, please use API Key for higher rate limit');
      } finally {
        await strict.app.close();
      }
    });

    it('an unknown chain', async () => {
      const res = await api.get('/424242/api', { module: 'token', action: 'tokenholdercount', contractaddress: TOKEN });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(notOk(CHAIN_TEXT));
    });

    it('a restricted contract address or miner needs the secret key', async () => {
      const q = { module: 'token', action: 'tokenholderlist', contractaddress: RESTRICTED };
      expect((await call(q)).body).toEqual(notOk('Error! Restricted access'));
      expect((await call({ ...q, key: 'wrong' })).body).toEqual(notOk('Error! Restricted access'));
      expect((await call({ ...q, key: SECRET })).body).toEqual({
        status: '1', message: 'OK', result: [{ TokenHolderAddress: HOLDERS[1]!.holder, TokenHolderQuantity: '1' }],
      });
      const minedQ = { module: 'account', action: 'getminedblocks', address: RESTRICTED.toUpperCase().replace('0X', '0x') };
      expect((await call(minedQ)).body).toEqual(notOk('Error! Restricted access'));
    });

    it('the v2 routes keep their own error bodies', async () => {
      const res = await api.get(`/${CHAIN}/api/v2/tokens/${RESTRICTED}/holders`);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: 'Restricted access' });
    });
  });
  describe('addresstokenbalance and addresstokennftbalance', () => {
    const holdings = (action: string, extra: Record<string, string | number> = {}) => call({ module: 'account', action, address: OWNER, ...extra });

    it('the positive balances of one type, by token address; missing metadata as empty text and divisor 0', async () => {
      expect((await holdings('addresstokenbalance')).body).toEqual({ status: '1', message: 'OK', result: erc20Rows });
      expect((await holdings('addresstokennftbalance')).body).toEqual({ status: '1', message: 'OK', result: nftRows });
    });

    it('paged: any page, each one token here; sort=desc reverses; past the end status 0', async () => {
      for (let page = 1; page <= erc20Rows.length; page++) {
        expect((await holdings('addresstokenbalance', { page, offset: 1 })).body.result).toEqual([erc20Rows[page - 1]]);
      }
      expect((await holdings('addresstokenbalance', { page: 2, offset: 2, sort: 'desc' })).body.result).toEqual([...erc20Rows].reverse().slice(2, 4));
      expect((await holdings('addresstokenbalance', { page: 1_000_000, offset: 100 })).body).toEqual({ status: '0', message: 'No records found', result: [] });
    });

    it("a restricted token is left out of anyone's holdings unless the request carries the secret key, and pages stay full", async () => {
      const holder = HOLDERS[1]!.holder;
      const tokens = async (extra: Record<string, string | number>) =>
        ((await holdings('addresstokenbalance', { address: holder, ...extra })).body.result as Array<{ TokenAddress: string }>).map((r) => r.TokenAddress);
      const both = [TOKEN, RESTRICTED].sort();
      expect(await tokens({})).toEqual([TOKEN]);
      expect(await tokens({ key: 'wrong' })).toEqual([TOKEN]);
      expect(await tokens({ key: SECRET })).toEqual(both);
      // one a page: the restricted token is not a hole in a page, whichever side of TOKEN it sorts
      expect(await tokens({ page: 1, offset: 1 })).toEqual([TOKEN]);
      expect((await holdings('addresstokenbalance', { address: holder, page: 2, offset: 1 })).body.result).toEqual([]);
      expect(await tokens({ page: 2, offset: 1, key: SECRET })).toEqual([both[1]]);
    });

    it('an address that holds nothing, the zero address, a bad address', async () => {
      const none = { status: '0', message: 'No records found', result: [] };
      expect((await holdings('addresstokenbalance', { address: addressOf(8, 'idle') })).body).toEqual(none);
      expect((await holdings('addresstokenbalance', { address: '0x0000000000000000000000000000000000000000' })).body).toEqual(none);
      expect((await holdings('addresstokennftbalance', { address: 'nope' })).body).toEqual(notOk('Error! Invalid address format'));
    });
  });

  describe('tokenbalance, tokensupply, tokeninfo', () => {
    const get = (action: string, module = 'account', extra: Record<string, string> = {}) => call({ module, action, ...extra });

    it('tokenbalance: the stored balance, "0" for none, for an ERC-1155 (no one-argument balanceOf) and for the zero address', async () => {
      const balanceOf = (contractaddress: string, address: string, extra: Record<string, string> = {}) =>
        get('tokenbalance', 'account', { contractaddress, address, ...extra });
      expect((await balanceOf(TOKEN, HOLDERS[4]!.holder)).body).toEqual({ status: '1', message: 'OK', result: HOLDERS[4]!.value.toString() });
      expect((await balanceOf(TOKEN, HOLDERS[4]!.holder, { tag: 'latest' })).body.result).toBe(HOLDERS[4]!.value.toString());
      expect((await balanceOf(TOKEN, addressOf(8, 'idle'))).body.result).toBe('0');
      expect((await balanceOf(MULTI, HOLDERS[0]!.holder)).body.result).toBe('0');
      expect((await balanceOf(TOKEN, '0x0000000000000000000000000000000000000000')).body.result).toBe('0');
      expect((await balanceOf(TOKEN, HOLDERS[4]!.holder, { tag: '0x10' })).body).toEqual(notOk('Error! Invalid tag'));
      expect((await balanceOf('0x12', HOLDERS[4]!.holder)).body).toEqual(notOk('Error! Invalid contract address format'));
      expect((await balanceOf(TOKEN, '0x12')).body).toEqual(notOk('Error! Invalid address format'));
    });

    it('tokensupply: the positive balances added up, zero address and zero balances left out; "0" for no token', async () => {
      const supply = HOLDERS.reduce((sum, h) => sum + h.value, 0n);
      expect((await get('tokensupply', 'stats', { contractaddress: TOKEN })).body).toEqual({ status: '1', message: 'OK', result: supply.toString() });
      expect((await get('tokensupply', 'stats', { contractaddress: addressOf(9, 'nothing') })).body.result).toBe('0');
    });

    it("tokeninfo: one element, that API's names and spellings; no token, no records", async () => {
      // HELD[0] has a second holder; HELD[1]'s balance at the zero address counts as burnt
      const held = HELD[0]!;
      expect((await get('tokeninfo', 'token', { contractaddress: held.token })).body).toEqual({
        status: '1',
        message: 'OK',
        result: [
          {
            contractAddress: held.token,
            tokenName: held.name,
            symbol: held.symbol,
            divisor: String(held.decimals),
            tokenType: 'ERC20',
            totalSupply: (held.value + 5n).toString(),
            blueCheckmark: 'false',
            description: '', website: '', email: '', blog: '', reddit: '', slack: '', facebook: '', twitter: '',
            bitcointalk: '', github: '', telegram: '', wechat: '', linkedin: '', discord: '', whitepaper: '',
            tokenPriceUSD: '0.0000000000',
          },
        ],
      });
      expect((await get('tokeninfo', 'token', { contractaddress: MULTI })).body.result[0]).toMatchObject({ tokenType: 'ERC1155', tokenName: '', divisor: '0' });
      expect((await get('tokeninfo', 'token', { contractaddress: addressOf(9, 'nothing') })).body).toEqual({ status: '0', message: 'No records found', result: [] });
    });
  });

  describe('getblockreward and getblocknobytime', () => {
    const block = (extra: Record<string, string | number>) => call({ module: 'block', ...extra });

    it('getblockreward: what the miner was paid (as getminedblocks lists it), no uncles here', async () => {
      const b = minedRows.find((r) => r.number === 112n)!;
      expect((await block({ action: 'getblockreward', blockno: 112 })).body).toEqual({
        status: '1',
        message: 'OK',
        result: { blockNumber: '112', timeStamp: b.timestamp.toString(), blockMiner: MINER, blockReward: reward(112).toString(), uncles: [], uncleInclusionReward: '0' },
      });
      expect((await block({ action: 'getblockreward', blockno: 120 })).body).toEqual(notOk('Error! Block not found'));
      for (const blockno of ['-1', 'x', '1e3', '9'.repeat(19)]) {
        expect((await block({ action: 'getblockreward', blockno })).body).toEqual(notOk('Error! Invalid block number'));
      }
    });

    it('getblocknobytime: consensus blocks only; before and after; nothing there', async () => {
      const at = (n: number) => 1_700_000_000 + n * 12;
      const byTime = (timestamp: number, closest?: string) =>
        block({ action: 'getblocknobytime', timestamp, ...(closest === undefined ? {} : { closest }) });
      expect((await byTime(at(105))).body).toEqual({ status: '1', message: 'OK', result: '105' });
      expect((await byTime(at(105) + 5, 'before')).body.result).toBe('105');
      expect((await byTime(at(105) + 5, 'AFTER')).body.result).toBe('106');
      expect((await byTime(at(105), 'after')).body.result).toBe('105');
      // block 120 lost consensus: the chain ends at 119
      expect((await byTime(at(120), 'before')).body.result).toBe('119');
      expect((await byTime(at(120), 'after')).body).toEqual(notOk('Error! No closest block found'));
      expect((await byTime(at(100) - 1, 'before')).body).toEqual(notOk('Error! No closest block found'));
      expect((await byTime(at(100), 'sideways')).body).toEqual(notOk('Error! Invalid closest value'));
      expect((await block({ action: 'getblocknobytime' })).body).toEqual(notOk('Error! Invalid timestamp'));
    });
  });

  describe('URL forms, parameter names, chain id', () => {
    const query = `module=token&action=tokenholdercount&contractaddress=${TOKEN}`;
    const count = { status: '1', message: 'OK', result: String(HOLDERS.length) };
    const inject = (url: string) => api.app.inject({ url }).then((r) => ({ status: r.statusCode, body: r.json(), headers: r.headers }));

    it('/v2/api?chainid=N, /api?chainid=N and /{chain_id}/api answer alike, with the rate-limit headers', async () => {
      const forms = [`/v2/api?chainid=${CHAIN}&${query}`, `/api?chainid=${CHAIN}&${query}`, `/${CHAIN}/api?${query}`, `/${CHAIN}/api?chainid=${CHAIN}&${query}`];
      // and each with a trailing slash, as some clients build the URL
      for (const url of [...forms, ...forms.map((f) => f.replace('/api?', '/api/?'))]) {
        const res = await inject(`${url}&apikey=${TEST_KEY}`);
        expect(res.status, url).toBe(200);
        expect(res.body, url).toEqual(count);
        expect(res.headers['x-ratelimit-limit'], url).toBeDefined();
      }
    });

    it('a missing, unknown, doubled or contradicting chain id: the chainid error in the envelope, never a 404 page', async () => {
      const urls = [
        `/v2/api?${query}`,
        `/api?${query}`,
        `/v2/api?chainid=424242&${query}`,
        `/v2/api?chainid=${CHAIN},10&${query}`,
        `/v2/api?chainid=${CHAIN}&chainid=10&${query}`,
        `/v2/api?chainid=0x${CHAIN.toString(16)}&${query}`,
        `/${CHAIN}/api?chainid=10&${query}`,
      ];
      for (const url of urls) {
        const res = await inject(`${url}&apikey=${TEST_KEY}`);
        expect(res.status, url).toBe(200);
        expect(res.body, url).toEqual(notOk(CHAIN_TEXT));
      }
      // no key comes first, as on every keyed route
      expect((await inject(`/v2/api?${query}`)).body).toEqual(notOk('Invalid API Key'));
    });

    it('apikey and every other name in any letter case or percent-encoding; two different keys are no key, one key twice is that key', async () => {
      const spellings = ['apiKey', 'APIKEY', 'ApiKey', '%41pikey', '%61%70%69%6b%65%79'];
      for (const name of spellings) {
        expect((await inject(`/v2/api?chainid=${CHAIN}&${query}&${name}=${TEST_KEY}`)).body, name).toEqual(count);
      }
      const camel = `Module=Token&Action=TokenHolderCount&ContractAddress=${TOKEN}&ChainId=${CHAIN}&apiKey=${TEST_KEY}`;
      expect((await inject(`/v2/api?${camel}`)).body).toEqual(count);
      expect((await inject(`/v2/api?chainid=${CHAIN}&${query}&apikey=${TEST_KEY}&APIKEY=other-key-123`)).body).toEqual(notOk('Invalid API Key'));
      // the same key twice is that key (a client with the key in its base URL, passing it again)
      expect((await inject(`/v2/api?chainid=${CHAIN}&${query}&apikey=${TEST_KEY}&APIKEY=${TEST_KEY}`)).body).toEqual(count);
      // a name spelt twice is a list, which no parameter accepts
      const twice = `/v2/api?chainid=${CHAIN}&module=token&action=tokenholdercount&contractaddress=${TOKEN}&ContractAddress=${TOKEN}&apikey=${TEST_KEY}`;
      expect((await inject(twice)).body).toEqual(notOk('Error! Invalid parameter'));
    });

    it('the OpenAPI document lists each form with every parameter the actions read', async () => {
      const doc = (await api.app.inject({ url: '/api/v2/openapi.json' })).json();
      for (const path of ['/{chain_id}/api', '/v2/api', '/api']) {
        const names = (doc.paths[path].get.parameters as Array<{ name: string }>).map((p) => p.name);
        expect(names, path).toEqual(expect.arrayContaining(['module', 'action', 'chainid', 'contractaddress', 'address', 'page', 'offset', 'sort', 'blocktype', 'tag', 'blockno', 'timestamp', 'closest']));
      }
    });

    it('the restricted list and the length limit hold whatever the spelling and the form', async () => {
      const restricted = `/v2/api?chainid=${CHAIN}&Module=token&Action=tokenholderlist&ContractAddress=${RESTRICTED}&apiKey=${TEST_KEY}`;
      expect((await inject(restricted)).body).toEqual(notOk('Error! Restricted access'));
      expect((await inject(`${restricted}&KEY=${SECRET}`)).body.status).toBe('1');
      expect((await inject(`/v2/api?chainid=${CHAIN}&${query}&apikey=${TEST_KEY}&Sort=${'x'.repeat(257)}`)).body).toEqual(notOk('Error! Invalid parameter'));
    });
  });
});

describe('README', () => {
  it('lists every action with its parameters and status, as the action table defines them (`npm run docs:settings` rewrites it)', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf(ACTIONS_START) + ACTIONS_START.length, readme.indexOf(ACTIONS_END)).trim();
    expect(table).toBe(renderActionsTable());
  });
});
