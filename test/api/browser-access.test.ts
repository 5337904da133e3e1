/**
 * Browser access (issue 17): CORS for the operator's origins, keyless mode for them when the
 * operator turns it on, restricted addresses still behind the `key` secret, keyed clients as
 * before, and the reference frontend's websocket answered at once rather than left hanging.
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureChain } from '../../src/db/queries/chains.js';
import { upsertBlocks } from '../../src/db/queries/write-blocks.js';
import { availableEngines } from '../support/databases.js';
import { startTestApi, TEST_KEY, type TestApi } from '../support/api.js';
import { addressOf, blockRow } from '../support/seed.js';

const CHAIN = 31337;
const MINER = addressOf(1, 'browser-miner');
const RESTRICTED = addressOf(2, 'browser-restricted');
const SECRET = 'browser-access-secret';
const ALLOWED = 'http://127.0.0.1:3055';
const OTHER = 'https://elsewhere.example';
const PER_SECOND = 3;

type Inject = { status: number; headers: Record<string, unknown>; body: any };

describe.each(await availableEngines())('browser access on %s', (engine) => {
  let api: TestApi;
  const call = async (url: string, headers: Record<string, string> = {}, remoteAddress = '10.1.1.1', method: 'GET' | 'OPTIONS' = 'GET'): Promise<Inject> => {
    const res = await api.app.inject({ method, url, headers, remoteAddress });
    return { status: res.statusCode, headers: res.headers, body: res.body ? JSON.parse(res.body) : null };
  };
  const blocksOf = (address: string) => `/${CHAIN}/api/v2/addresses/${address}/blocks-validated`;

  beforeAll(async () => {
    api = await startTestApi(engine, {
      api: { corsOrigins: [ALLOWED], publicRateLimit: PER_SECOND, restrictedAddresses: [RESTRICTED], restrictedKey: SECRET },
    });
    await ensureChain(api.db, CHAIN, 2);
    await upsertBlocks(api.db, [blockRow(CHAIN, 1, MINER), blockRow(CHAIN, 2, RESTRICTED)]);
  });
  afterAll(() => api?.close());

  it('an allowed origin without a key is served, with CORS headers', async () => {
    const res = await call(blocksOf(MINER), { origin: ALLOWED });
    expect(res.status).toBe(200);
    expect(res.body.items.map((b: any) => b.height)).toEqual([1]);
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(String(res.headers.vary)).toMatch(/origin/i);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    for (const p of ['stats', 'config/backend-version', 'main-page/indexing-status', `addresses/${MINER}`]) {
      expect((await call(`/${CHAIN}/api/v2/${p}`, { origin: ALLOWED }, '10.1.1.2')).status, p).toBe(200);
      await sleep(1_000 / PER_SECOND);
    }
  });

  it('another origin, or none, gets no CORS headers and still needs a key', async () => {
    const headerSets: Record<string, string>[] = [{ origin: OTHER }, {}, { origin: `${ALLOWED}.evil.example` }];
    for (const headers of headerSets) {
      const res = await call(blocksOf(MINER), headers, '10.2.2.2');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'Invalid or missing API key' });
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('preflights: answered for the allowed origin, without CORS headers for another', async () => {
    const preflight = (origin: string) =>
      call(blocksOf(MINER), { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'content-type' }, '10.3.3.3', 'OPTIONS');
    const allowed = await preflight(ALLOWED);
    expect(allowed.status).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(String(allowed.headers['access-control-allow-methods'])).toContain('GET');
    const other = await preflight(OTHER);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('the keyless budget is per client address, and a 429 still carries CORS headers', async () => {
    // a burst of 8 from one address: 3 served, 5 refused (a burst split by the one-second
    // window's edge is tried again in a fresh window)
    let statuses: number[] = [];
    let refused: Inject | undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      const burst = await Promise.all(Array.from({ length: 8 }, () => call(blocksOf(MINER), { origin: ALLOWED }, '10.4.4.4')));
      statuses = burst.map((r) => r.status).sort();
      refused = burst.find((r) => r.status === 429);
      if (statuses.filter((s) => s === 200).length === PER_SECOND) break;
      await sleep(1_100);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
    expect(refused!.body).toEqual({ message: 'Too many requests' });
    expect(refused!.headers['access-control-allow-origin']).toBe(ALLOWED);
    // another client address has its own budget, and a keyed client is not counted against it
    expect((await call(blocksOf(MINER), { origin: ALLOWED }, '10.4.4.5')).status).toBe(200);
    expect((await call(`${blocksOf(MINER)}?apikey=${TEST_KEY}`, { origin: ALLOWED }, '10.4.4.4')).status).toBe(200);
  });

  it('a restricted address stays 403 without the key secret', async () => {
    const closed = await call(blocksOf(RESTRICTED), { origin: ALLOWED }, '10.5.5.5');
    expect(closed.status).toBe(403);
    expect(closed.body).toEqual({ message: 'Restricted access' });
    const address = await call(`/${CHAIN}/api/v2/addresses/${RESTRICTED}`, { origin: ALLOWED }, '10.5.5.6');
    expect(address.status).toBe(403);
    const open = await call(`${blocksOf(RESTRICTED)}?key=${SECRET}`, { origin: ALLOWED }, '10.5.5.7');
    expect(open.status).toBe(200);
    expect(open.body.items.map((b: any) => b.height)).toEqual([2]);
  });

  it('keyed clients: unchanged, and a presented key is judged as before whatever the origin', async () => {
    const keyed = await call(`${blocksOf(MINER)}?apikey=${TEST_KEY}`, { origin: OTHER }, '10.6.6.6');
    expect(keyed.status).toBe(200);
    expect(keyed.headers['access-control-allow-origin']).toBeUndefined();
    const wrong = await call(`${blocksOf(MINER)}?apikey=not-a-valid-key-000`, { origin: ALLOWED }, '10.6.6.7');
    expect(wrong.status).toBe(401);
  });
});

describe.each(await availableEngines())('browser access settings off on %s', (engine) => {
  it('keyless mode is off by default: an allowed origin gets CORS headers but needs a key', async () => {
    const api = await startTestApi(engine, { api: { corsOrigins: [ALLOWED] } });
    try {
      await ensureChain(api.db, CHAIN, 2);
      const res = await api.app.inject({ url: `/${CHAIN}/api/v2/stats`, headers: { origin: ALLOWED } });
      expect(res.statusCode).toBe(401);
      expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
    } finally {
      await api.close();
    }
  });

  it('no origins configured: no CORS headers at all, and the keyless budget alone opens nothing', async () => {
    const api = await startTestApi(engine, { api: { publicRateLimit: 5 } });
    try {
      await ensureChain(api.db, CHAIN, 2);
      const res = await api.app.inject({ url: `/${CHAIN}/api/v2/stats`, headers: { origin: ALLOWED } });
      expect(res.statusCode).toBe(401);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await api.close();
    }
  });
});

describe.each(await availableEngines())('the reference frontend\'s websocket on %s', (engine) => {
  it('an upgrade to /socket/v2/websocket is answered at once, not left hanging', async () => {
    const api = await startTestApi(engine, { api: { corsOrigins: [ALLOWED], publicRateLimit: 5 } });
    try {
      await api.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = api.app.server.address() as AddressInfo;
      const started = Date.now();
      const outcome = await new Promise<string>((resolve, reject) => {
        const req = httpRequest({
          host: '127.0.0.1', port, path: '/socket/v2/websocket?vsn=2.0.0',
          headers: { connection: 'Upgrade', upgrade: 'websocket', origin: ALLOWED, 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' },
        });
        req.on('response', (res) => resolve(`status ${res.statusCode}`));
        req.on('upgrade', () => resolve('upgraded'));
        req.on('error', (error) => resolve(`closed: ${error.message}`));
        req.setTimeout(5_000, () => reject(new Error('the upgrade hung for 5 s')));
        req.end();
      });
      expect(outcome).not.toBe('upgraded');
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await api.close();
    }
  });
});
