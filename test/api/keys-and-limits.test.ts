import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Database } from '../../src/db/client.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { createApiKey, revokeApiKey } from '../../src/db/queries/api-keys.js';
import { addRestrictedAddress } from '../../src/db/queries/restricted.js';
import { upsertTokens } from '../../src/db/queries/write-tokens.js';
import { availableEngines, redisAvailable, REDIS_URL } from '../support/databases.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { addressOf } from '../support/seed.js';
import { assertRevokedWithin } from '../support/revocation.js';
import { startTcpProxy } from '../support/tcp-proxy.js';
import { waitFor } from '../support/indexer-harness.js';
import { openRedis } from '../../src/cli/runtime.js';

const CHAIN = 7;
const MINER = addressOf(1, 'miner');
const path = (a: string = MINER) => `/${CHAIN}/api/v2/addresses/${a}/blocks-validated`;

async function burst(api: TestApi, key: string, n: number, url = path()) {
  return Promise.all(Array.from({ length: n }, () => api.app.inject({ url, headers: { 'x-api-key': key } })));
}

/** The database, with every API-key lookup it answers recorded (the digest asked about). */
function countingLookups(db: Database): { db: Database; lookups: string[] } {
  const lookups: string[] = [];
  const counting: Database = {
    engine: db.engine,
    transaction: (fn, options) => db.transaction(fn, options),
    exec: (sql) => db.exec(sql),
    close: () => db.close(),
    query: (text, params, options) => {
      if (/FROM api_keys/i.test(text)) lookups.push(String(params?.[0]));
      return db.query(text, params, options);
    },
  };
  return { db: counting, lookups };
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

  it('a revoked key stops working within the documented 5 s', async () => {
    const { key, record } = await createApiKey(api.db, 'to-revoke', 1000);
    // the key's first answer fills the cache just before the revocation: the worst case
    expect((await burst(api, key, 1))[0]!.statusCode).toBe(200);
    const { lastOkSentMs, refusedAfterMs } = await assertRevokedWithin(
      5_000,
      () => revokeApiKey(api.db, record.id),
      async () => [(await burst(api, key, 1))[0]!.statusCode],
    );
    console.log(`revocation: last 200 to a request sent ${lastOkSentMs} ms after the commit, refused from ${refusedAfterMs} ms`);
  });

  it('one key sent several ways is that key; two different keys are no key', async () => {
    const { key } = await createApiKey(api.db, 'twice', 1_000);
    const { key: other } = await createApiKey(api.db, 'other', 1_000);
    const ok = [
      await api.app.inject(`${path()}?apikey=${key}&apikey=${key}`),
      await api.app.inject({ url: `${path()}?apikey=${key}`, headers: { 'x-api-key': key } }),
      await api.app.inject({ url: `${path()}?apikey=${key}`, headers: { authorization: `Bearer ${key}` } }),
      // that API's clients put the key in the base URL and pass it again, in another spelling
      await api.app.inject(`/${CHAIN}/api?module=account&action=getminedblocks&address=${MINER}&apikey=${key}&apiKey=${key}`),
    ];
    expect(ok.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    expect(ok[0]!.json()).toEqual({ items: [], next_page_params: null });
    expect(ok[3]!.json()).toMatchObject({ status: '0', message: 'No transactions found' });
    const refused = [
      await api.app.inject(`${path()}?apikey=${key}&apikey=${other}`),
      await api.app.inject({ url: `${path()}?apikey=${key}`, headers: { 'x-api-key': other } }),
      await api.app.inject({ url: path(), headers: { 'x-api-key': key, authorization: `Bearer ${other}` } }),
    ];
    expect(refused.map((r) => r.statusCode)).toEqual([401, 401, 401]);
    expect(refused[1]!.json()).toEqual({ message: 'Invalid or missing API key' });
  });

  it('malformed or over-long keys are refused without a database lookup', async () => {
    const counted = countingLookups(api.db);
    const strict = await startTestApi(engine, { db: counted.db, api: { defaultRateLimit: 1_000 } });
    try {
      const malformed = ['k'.repeat(15_000), 'k'.repeat(129), 'short', 'has space1', 'ключ-0123456789', 'key"quote"123'];
      for (const bad of malformed) {
        for (const res of [
          await strict.app.inject(`${path()}?apikey=${encodeURIComponent(bad)}`),
          await strict.app.inject({ url: path(), headers: { 'x-api-key': encodeURIComponent(bad) } }),
          await strict.app.inject({ url: path(), headers: { authorization: `Bearer ${encodeURIComponent(bad)}` } }),
        ]) {
          expect(res.statusCode).toBe(401);
          expect(res.json()).toEqual({ message: 'Invalid or missing API key' });
          expect(res.headers['x-ratelimit-limit']).toBe('1000');
        }
      }
      expect(counted.lookups).toEqual([]);
      // the longest well-formed key is asked about
      await strict.app.inject(`${path()}?apikey=${'k'.repeat(128)}`);
      expect(counted.lookups).toHaveLength(1);
    } finally {
      await strict.app.close();
    }
  });

  it('unknown keys spend their address budget before the database is asked', async () => {
    const counted = countingLookups(api.db);
    const limited = await startTestApi(engine, { db: counted.db, api: { defaultRateLimit: 5 } });
    try {
      const started = Date.now();
      const replies = await Promise.all(
        Array.from({ length: 60 }, () => limited.app.inject({ url: path(), headers: { 'x-api-key': randomBytes(18).toString('base64url') } })),
      );
      const windows = Math.ceil((Date.now() - started) / 1_000) + 1;
      const statuses = replies.map((r) => r.statusCode);
      console.log(`60 unknown keys in ${windows - 1}+ s: ${counted.lookups.length} lookups, ${statuses.filter((s) => s === 429).length} × 429`);
      expect(counted.lookups.length).toBeLessThanOrEqual(5 * windows);
      expect(statuses.filter((s) => s === 401)).toHaveLength(counted.lookups.length);
      expect(statuses.filter((s) => s === 429).length).toBe(60 - counted.lookups.length);
      for (const r of replies) expect(r.headers['x-ratelimit-limit']).toBe('5');
    } finally {
      await limited.app.close();
    }
  });

  it('a flood of wrong keys does not push a valid key out of the cache', async () => {
    const counted = countingLookups(api.db);
    const flooded = await startTestApi(engine, { db: counted.db, api: { defaultRateLimit: 1_000_000 } });
    // the clock stands still: only eviction, never expiry, can make the key be asked again
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const { key } = await createApiKey(api.db, 'flood-survivor', 1_000_000);
      expect((await burst(flooded, key, 1))[0]!.statusCode).toBe(200);
      expect(counted.lookups).toHaveLength(1);
      const valid = counted.lookups[0]!;
      for (let batch = 0; batch < 21; batch++) {
        const wrong = Array.from({ length: 500 }, () => randomBytes(18).toString('base64url'));
        await Promise.all(wrong.map((k) => flooded.app.inject({ url: path(), headers: { 'x-api-key': k } })));
      }
      expect(counted.lookups.length).toBeGreaterThan(10_000);
      expect((await burst(flooded, key, 1))[0]!.statusCode).toBe(200);
      expect(counted.lookups.filter((digest) => digest === valid)).toHaveLength(1);
    } finally {
      vi.useRealTimers();
      await flooded.app.close();
    }
  }, 120_000);

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

  it('while Redis is away or hung, each server counts the limits itself; shared again once it answers', async () => {
    const [engine] = await availableEngines();
    const port = Number(new URL(REDIS_URL).port || 6379);
    const relay = await startTcpProxy(port, new URL(REDIS_URL).hostname);
    const url = new URL(REDIS_URL);
    url.port = String(relay.port);
    const quiet = { warn: () => undefined, info: () => undefined };
    const redisA = openRedis(url.toString(), quiet);
    const redisB = openRedis(url.toString(), quiet);
    const first = await startTestApi(engine!, { api: { defaultRateLimit: 10 }, redis: redisA });
    const second = await startTestApi(engine!, { api: { defaultRateLimit: 10 }, redis: redisB, db: first.db });
    const nextWindow = () => new Promise((r) => setTimeout(r, 1_100));
    const okOf = async (key: string) => {
      const replies = (await Promise.all([burst(first, key, 6), burst(second, key, 6)])).flat();
      return replies.filter((r) => r.statusCode === 200).length;
    };
    try {
      await ensureChain(first.db, CHAIN);
      await waitFor(async () => (redisA.status === 'ready' && redisB.status === 'ready' ? true : undefined), () => 'Redis clients ready', 10_000, 50);
      const { key } = await createApiKey(first.db, `fallback-${Date.now()}`, 4);
      // (key ids start at 1 in every test database: a counter of the test before may be in its window)
      await nextWindow();
      expect(await okOf(key)).toBe(4);
      relay.cut();
      await nextWindow();
      // each process its own budget of 4: 8 in all, never unlimited (12)
      expect(await okOf(key)).toBe(8);
      relay.restore();
      await waitFor(async () => (redisA.status === 'ready' && redisB.status === 'ready' ? true : undefined), () => 'Redis clients reconnected', 20_000, 50);
      // (a command that failed in the cut leaves Redis alone for 5 s)
      await new Promise((r) => setTimeout(r, 5_100));
      expect(await okOf(key)).toBe(4);
      // hung: connections open, nothing answered; the command timeout ends each wait
      relay.stall();
      redisA.disconnect(true);
      redisB.disconnect(true);
      await nextWindow();
      expect(await okOf(key)).toBe(8);
      // Redis is then left alone for a while: no request waits for the timeout again
      await nextWindow();
      const started = Date.now();
      expect(await okOf(key)).toBe(8);
      expect(Date.now() - started).toBeLessThan(200);
    } finally {
      relay.restore();
      await second.app.close();
      await first.close();
      redisA.disconnect();
      redisB.disconnect();
      await relay.close();
    }
  }, 60_000);
});
