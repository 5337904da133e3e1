import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from '../../src/db/rows.js';
import type { BlockRow } from '../../src/db/model/block.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { createApiKey } from '../../src/db/queries/api-keys.js';
import { putBalances, upsertTokens } from '../../src/db/queries/write-tokens.js';
import { upsertBlocks } from '../../src/db/queries/write-blocks.js';
import { availableEngines } from '../support/databases.js';
import { startTestApi, TEST_KEY, type TestApi } from '../support/api.js';
import { addressOf, blockRow, hashOf } from '../support/seed.js';

const CHAIN = 11;
const TOKEN = addressOf(1, 'es-token');
const MULTI = addressOf(2, 'es-token');
const EMPTY = addressOf(3, 'es-token');
const RESTRICTED = addressOf(4, 'es-token');
const MINER = addressOf(1, 'es-miner');
const OTHER_MINER = addressOf(2, 'es-miner');
const FUND = addressOf(3, 'es-fund');
const SECRET = 'es-secret';
const WINDOW_TEXT = 'Result window is too large, PageNo x Offset size must be less than or equal to 10000';

// 25 holders; values repeat so the address tie-breaker matters
const HOLDERS = Array.from({ length: 25 }, (_, i) => ({ holder: addressOf(i, 'es-holder'), value: BigInt((i % 7) + 1) * 10n ** 18n }));
const byValueThenAddressDesc = (a: { holder: string; value: bigint }, b: { holder: string; value: bigint }) =>
  a.value !== b.value ? (a.value > b.value ? -1 : 1) : a.holder < b.holder ? 1 : a.holder > b.holder ? -1 : 0;
const RANKED = [...HOLDERS].sort(byValueThenAddressDesc).map((h) => ({ TokenHolderAddress: h.holder, TokenHolderQuantity: h.value.toString() }));

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

describe.each(await availableEngines())('Etherscan-style /{chain_id}/api on %s', (engine) => {
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
      const expected = { status: '0', message: 'No token holders found', result: [] };
      expect((await list({ page: 4, offset: 10 })).body).toEqual(expected);
      expect((await list({ contractaddress: EMPTY })).body).toEqual(expected);
      expect((await list({ contractaddress: addressOf(5, 'nothing') })).body).toEqual(expected);
    });

    it('ERC-1155: one row per holder and token id', async () => {
      const res = await list({ contractaddress: MULTI });
      expect(res.body.result).toEqual(Array.from({ length: 3 }, () => ({ TokenHolderAddress: HOLDERS[0]!.holder, TokenHolderQuantity: '4' })));
    });

    it('page × offset beyond 10,000 is refused, so no deep OFFSET scan happens', async () => {
      const tooLarge: Array<Record<string, number>> = [{ page: 2, offset: 5001 }, { page: 1, offset: 10001 }, { page: 10001, offset: 1 }, { page: 2 }];
      for (const query of tooLarge) {
        expect((await list(query)).body).toEqual({ status: '0', message: 'NOTOK', result: WINDOW_TEXT });
      }
      expect((await list({ page: 1, offset: 10000 })).body.status).toBe('1');
      expect((await list({ page: 2, offset: 5000 })).body.message).toBe('No token holders found');
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
      expect((await mined({ page: 5, offset: 4 })).body).toEqual({ status: '0', message: 'No blocks found', result: [] });
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
      expect((await mined({ address: addressOf(7, 'idle') })).body).toEqual({ status: '0', message: 'No blocks found', result: [] });
      expect((await mined({ address: addressOf(7, 'idle'), blocktype: 'uncles' })).body.status).toBe('0');
      for (const address of ['0x', 'miner', `${MINER}1`]) {
        expect((await mined({ address })).body).toEqual({ status: '0', message: 'NOTOK', result: 'Error! Invalid address format' });
      }
      expect((await mined({ blocktype: 'orphans' })).body).toEqual({ status: '0', message: 'NOTOK', result: 'Error! Invalid blocktype' });
      expect((await mined({ page: 3, offset: 5000 })).body.result).toBe(WINDOW_TEXT);
    });
  });

  describe('envelope errors, all HTTP 200', () => {
    const notOk = (result: string) => ({ status: '0', message: 'NOTOK', result });

    it('module and action', async () => {
      const module = notOk('Error! Missing Or invalid Module name');
      const action = notOk('Error! Missing Or invalid Action name');
      const cases: Array<[Record<string, string>, unknown]> = [
        [{}, module],
        [{ module: 'stats' }, module],
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

    it('over the rate limit: Max rate limit reached', async () => {
      const { key } = await createApiKey(api.db, 'es-slow', 1);
      const url = `/${CHAIN}/api?module=token&action=tokenholdercount&contractaddress=${TOKEN}&apikey=${key}`;
      const replies = await Promise.all(Array.from({ length: 3 }, () => api.app.inject({ url })));
      const bodies = replies.map((r) => r.json());
      expect(replies.every((r) => r.statusCode === 200)).toBe(true);
      expect(bodies.filter((b) => b.status === '1')).toHaveLength(1);
      expect(bodies.filter((b) => b.result === 'Max rate limit reached')).toHaveLength(2);
      const limited = replies.find((r) => r.json().status === '0')!;
      expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    });

    it('an unknown chain', async () => {
      const res = await api.get('/424242/api', { module: 'token', action: 'tokenholdercount', contractaddress: TOKEN });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(notOk('Missing or unsupported chainid parameter'));
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
});
