import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { ensureChain } from '../../src/db/queries/chains.js';
import { createApiKey, revokeApiKey } from '../../src/db/queries/api-keys.js';
import { addRestrictedAddress } from '../../src/db/queries/restricted.js';
import { upsertTokens } from '../../src/db/queries/write-tokens.js';
import { availableEngines, redisAvailable, REDIS_URL } from '../support/databases.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { addressOf } from '../support/seed.js';

const CHAIN = 7;
const MINER = addressOf(1, 'miner');
const path = (a: string = MINER) => `/${CHAIN}/api/v2/addresses/${a}/blocks-validated`;

async function burst(api: TestApi, key: string, n: number, url = path()) {
  return Promise.all(Array.from({ length: n }, () => api.app.inject({ url, headers: { 'x-api-key': key } })));
}

describe.each(await availableEngines())('keys, limits and restrictions on %s', (engine) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(engine, {
      api: { defaultRateLimit: 5, restrictedKey: 'open-sesame', restrictedAddresses: [addressOf(9, 'restricted-env')] },
    });
    await ensureChain(api.db, CHAIN);
  });
  afterAll(() => api?.close());

  it('keys are stored as digests only', async () => {
    const { key } = await createApiKey(api.db, 'digest-check', null);
    const rows = await api.db.query<{ key_hash: string }>('SELECT key_hash FROM api_keys');
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(r.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(r.key_hash).not.toContain(key);
    }
  });

  it('a key over its limit gets 429 Too many requests; its own limit overrides the default', async () => {
    const { key: slow } = await createApiKey(api.db, 'slow', 3);
    const replies = await burst(api, slow, 6);
    const statuses = replies.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3);
    const limited = replies.find((r) => r.statusCode === 429)!;
    expect(limited.json()).toEqual({ message: 'Too many requests' });
    expect(limited.headers['x-ratelimit-limit']).toBe('3');
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    // the budget comes back after the window
    await new Promise((r) => setTimeout(r, Number(limited.headers['x-ratelimit-reset']) + 50));
    expect((await burst(api, slow, 1))[0]!.statusCode).toBe(200);
  });

  it('keys have separate budgets; the default applies to keys without their own', async () => {
    const { key: a } = await createApiKey(api.db, 'a', null);
    const { key: b } = await createApiKey(api.db, 'b', null);
    const [ra, rb] = await Promise.all([burst(api, a, 5), burst(api, b, 5)]);
    expect([...ra, ...rb].every((r) => r.statusCode === 200)).toBe(true);
    expect((await burst(api, a, 1))[0]!.statusCode).toBe(429);
  });

  it('a revoked key stops working within seconds', async () => {
    const { key, record } = await createApiKey(api.db, 'to-revoke', 1000);
    expect((await burst(api, key, 1))[0]!.statusCode).toBe(200);
    await revokeApiKey(api.db, record.id);
    const started = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - started < 10_000) {
      await new Promise((r) => setTimeout(r, 250));
      status = (await burst(api, key, 1))[0]!.statusCode;
    }
    expect(status).toBe(401);
    expect(Date.now() - started).toBeLessThan(7_000);
  });

  it('restricted addresses: 403 without the secret, open with key=<secret>', async () => {
    const { key } = await createApiKey(api.db, 'restricted-check', 1000);
    const fromDb = addressOf(8, 'restricted-db');
    await addRestrictedAddress(api.db, fromDb, CHAIN);
    await upsertTokens(api.db, [{ chainId: CHAIN, address: fromDb, type: 'ERC-20', name: null, symbol: null, decimals: null, totalSupply: null }]);
    await new Promise((r) => setTimeout(r, 2_100)); // registry refresh
    for (const url of [path(addressOf(9, 'restricted-env')), path(fromDb), `/${CHAIN}/api/v2/tokens/${fromDb}/holders`]) {
      const denied = await api.app.inject({ url, headers: { 'x-api-key': key } });
      expect(denied.statusCode, url).toBe(403);
      expect(denied.json()).toEqual({ message: 'Restricted access' });
      const wrong = await api.app.inject({ url: `${url}?key=nope`, headers: { 'x-api-key': key } });
      expect(wrong.statusCode).toBe(403);
      const opened = await api.app.inject({ url: `${url}?key=open-sesame`, headers: { 'x-api-key': key } });
      expect(opened.statusCode, url).toBe(200);
    }
    // not restricted on another chain
    await ensureChain(api.db, CHAIN + 1);
    await new Promise((r) => setTimeout(r, 2_100));
    const elsewhere = await api.app.inject({ url: `/${CHAIN + 1}/api/v2/addresses/${fromDb}/blocks-validated`, headers: { 'x-api-key': key } });
    expect(elsewhere.statusCode).toBe(200);
  });
});

describe.runIf(await redisAvailable())('rate limits shared through Redis', () => {
  it('two API servers on one Redis share one key budget', async () => {
    const [engine] = await availableEngines();
    const first = await startTestApi(engine!, { api: { defaultRateLimit: 10 }, redis: new Redis(REDIS_URL) });
    const second = await startTestApi(engine!, { api: { defaultRateLimit: 10 }, redis: new Redis(REDIS_URL), db: first.db });
    try {
      await ensureChain(first.db, CHAIN);
      const { key } = await createApiKey(first.db, `shared-${Date.now()}`, null);
      const replies = (await Promise.all([burst(first, key, 10), burst(second, key, 10)])).flat();
      const ok = replies.filter((r) => r.statusCode === 200).length;
      expect(ok).toBe(10);
      expect(replies.filter((r) => r.statusCode === 429)).toHaveLength(10);
    } finally {
      await second.app.close();
      await first.close();
    }
  });
});
