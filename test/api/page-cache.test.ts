import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureChain } from '../../src/db/queries/chains.js';
import { putBalances, upsertTokens } from '../../src/db/queries/write-tokens.js';
import { setIndexedBlock } from '../../src/db/queries/progress.js';
import { startTestApi, TEST_KEY, type TestApi } from '../support/api.js';
import { addressOf } from '../support/seed.js';

const CHAIN = 9;
const TOKEN = addressOf(1, 'token');

describe('page cache', () => {
  let api: TestApi;
  const page = () => api.app.inject({ url: `/${CHAIN}/api/v2/tokens/${TOKEN}/holders?items_count=5`, headers: { 'x-api-key': TEST_KEY } });
  const setBalance = (value: bigint) =>
    putBalances(api.db, [{ chainId: CHAIN, token: TOKEN, holder: addressOf(1), tokenId: null, value, blockNumber: 1n }]);

  beforeAll(async () => {
    api = await startTestApi('pglite', { api: { pageCacheMs: 60_000 } });
    await ensureChain(api.db, CHAIN);
    await upsertTokens(api.db, [{ chainId: CHAIN, address: TOKEN, type: 'ERC-20', name: null, symbol: null, decimals: null, totalSupply: null }]);
    await setBalance(5n);
  });
  afterAll(() => api?.close());

  it('serves a repeated page from memory, still behind the key check, and reads again once the indexed block moves', async () => {
    const first = await page();
    expect(first.headers['x-cache']).toBeUndefined();
    await setBalance(7n); // written without moving the indexed block: the cached page stays
    const second = await page();
    expect(second.headers['x-cache']).toBe('hit');
    expect(second.body).toBe(first.body);
    expect(second.headers['x-ratelimit-limit']).toBeDefined();
    expect((await api.app.inject(`/${CHAIN}/api/v2/tokens/${TOKEN}/holders?items_count=5`)).statusCode).toBe(401);
    await setIndexedBlock(api.db, CHAIN, 2n);
    await new Promise((r) => setTimeout(r, 2_100)); // the chain registry refreshes every 2 s
    const third = await page();
    expect(third.headers['x-cache']).toBeUndefined();
    expect(third.json().items[0].value).toBe('7');
  });
});
