import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type AddressInfo, type Socket } from 'node:net';
import pg from 'pg';
import { buildServer } from '../../src/api/server.js';
import { loadConfig, type ApiConfig } from '../../src/config/config.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { upsertTokens } from '../../src/db/queries/write-tokens.js';
import { openDatabase } from '../../src/db/client.js';
import { availableEngines, freshDatabase, postgresAvailable, type Engine } from '../support/databases.js';
import { apiConfig, startTestApi, TEST_KEY, type TestApi } from '../support/api.js';
import { addressOf } from '../support/seed.js';

const CHAIN = 3;
const TOKEN = addressOf(1, 'bounds-token');
const MINER = addressOf(1, 'bounds-miner');
const blocks = `/${CHAIN}/api/v2/addresses/${MINER}/blocks-validated`;

async function listening(overrides: Partial<ApiConfig>, engine: Engine = 'pglite') {
  const api = await startTestApi(engine, { api: overrides });
  await api.app.listen({ host: '127.0.0.1', port: 0 });
  return { api, port: (api.app.server.address() as AddressInfo).port };
}

/** A raw connection; `closed` resolves with the ms from open to the server closing it, and what it said. */
function rawSocket(port: number): { socket: Socket; opened: Promise<void>; closed: Promise<{ afterMs: number; said: string }> } {
  const started = performance.now();
  let said = '';
  const socket = connect(port, '127.0.0.1');
  socket.on('data', (chunk) => (said += chunk.toString()));
  socket.on('error', () => undefined);
  const opened = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const closed = new Promise<{ afterMs: number; said: string }>((resolve) =>
    socket.once('close', () => resolve({ afterMs: performance.now() - started, said })),
  );
  return { socket, opened, closed };
}

/** At most `ms`, or the socket is still open and the test fails (never waits Node's 60 s or more). */
const within = <T>(ms: number, what: Promise<T>, label: string) =>
  Promise.race([what, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${label}: still open after ${ms} ms`)), ms))]);

describe('connection bounds', () => {
  it('the documented defaults reach the HTTP server', async () => {
    const { api: defaults } = loadConfig({}, {});
    expect([defaults.connectionTimeoutMs, defaults.requestTimeoutMs, defaults.headersTimeoutMs, defaults.keepAliveTimeoutMs]).toEqual([30_000, 10_000, 5_000, 5_000]);
    expect([defaults.maxConnections, defaults.statementTimeoutMs, defaults.pageCacheMb]).toEqual([1_024, 5_000, 32]);
    const fromEnv = loadConfig({}, { EXPLORER_REQUEST_TIMEOUT_MS: '7000', EXPLORER_MAX_CONNECTIONS: '50', EXPLORER_PAGE_CACHE_MB: '8' });
    expect([fromEnv.api.requestTimeoutMs, fromEnv.api.maxConnections, fromEnv.api.pageCacheMb]).toEqual([7_000, 50, 8]);
    expect(() => loadConfig({}, { EXPLORER_STATEMENT_TIMEOUT_MS: 'soon' })).toThrow(/EXPLORER_STATEMENT_TIMEOUT_MS/);
    // a static key no request could present is refused at start, without echoing it
    const refused = (() => {
      try {
        loadConfig({}, { EXPLORER_API_KEYS: 'good-key-123, bad key' });
      } catch (error) {
        return String(error);
      }
      return 'accepted';
    })();
    expect(refused).toMatch(/EXPLORER_API_KEYS/);
    expect(refused).not.toContain('bad key');

    const app = await buildServer({ db: (await freshDatabase('pglite')).db, api: apiConfig() });
    try {
      const server = app.server;
      expect(server.requestTimeout).toBe(10_000);
      expect(server.headersTimeout).toBe(5_000);
      expect(server.keepAliveTimeout).toBe(5_000);
      expect(server.timeout).toBe(30_000);
      expect(server.maxConnections).toBe(1_024);
    } finally {
      await app.close();
    }
  });

  it('headers sent a byte at a time, or not at all: 408 and closed after the headers timeout', async () => {
    const { api, port } = await listening({ headersTimeoutMs: 500, requestTimeoutMs: 1_000 });
    try {
      const slow = rawSocket(port);
      await slow.opened;
      slow.socket.write(`GET ${blocks}?apikey=${TEST_KEY} HTTP/1.1\r\nhost: x\r\n`);
      const trickle = setInterval(() => slow.socket.writable && slow.socket.write('x'), 100);
      const silent = rawSocket(port);
      // 500 ms plus Node's check of those deadlines, once a second
      const [a, b] = await Promise.all([within(4_000, slow.closed, 'slow headers'), within(4_000, silent.closed, 'silent')]);
      clearInterval(trickle);
      expect(a.said).toMatch(/^HTTP\/1\.1 408 /);
      expect(a.said).toContain('{"message":"Request timeout"}');
      expect(a.said).toContain('x-content-type-options: nosniff');
      console.log(`slow headers closed after ${a.afterMs.toFixed(0)} ms, a silent connection after ${b.afterMs.toFixed(0)} ms`);
    } finally {
      await api.close();
    }
  });

  it('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    const { api, port } = await listening({ keepAliveTimeoutMs: 300 });
    try {
      const client = rawSocket(port);
      await client.opened;
      client.socket.write(`GET /metrics HTTP/1.1\r\nhost: x\r\n\r\n`);
      const { afterMs, said } = await within(3_000, client.closed, 'idle keep-alive');
      expect(said).toMatch(/^HTTP\/1\.1 200 /);
      console.log(`idle keep-alive closed after ${afterMs.toFixed(0)} ms`);
    } finally {
      await api.close();
    }
  });

  it('a connection that stalls mid-request is closed after the connection timeout', async () => {
    const { api, port } = await listening({ connectionTimeoutMs: 400, headersTimeoutMs: 0, requestTimeoutMs: 0 });
    try {
      const client = rawSocket(port);
      await client.opened;
      client.socket.write('GET /health HTTP/1.1\r\n');
      const { afterMs } = await within(3_000, client.closed, 'stalled');
      expect(afterMs).toBeGreaterThanOrEqual(350);
    } finally {
      await api.close();
    }
  });

  it('connections beyond the cap are refused; those within it are served', async () => {
    const { api, port } = await listening({ maxConnections: 3 });
    const sockets: Array<ReturnType<typeof rawSocket>> = [];
    try {
      for (let i = 0; i < 3; i++) {
        sockets.push(rawSocket(port));
        await sockets[i]!.opened;
      }
      await new Promise((r) => setTimeout(r, 100)); // the server has accepted all three
      const extra = rawSocket(port);
      const refused = await within(2_000, extra.closed, 'fourth connection');
      expect(refused.said).toBe('');
      sockets[0]!.socket.write('GET /metrics HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
      expect((await within(3_000, sockets[0]!.closed, 'served')).said).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      for (const s of sockets) s.socket.destroy();
      await api.close();
    }
  });
});

describe.each(await availableEngines())('security headers on every answer (%s)', (engine) => {
  let api: TestApi;
  let port: number;
  beforeAll(async () => {
    ({ api, port } = await listening({ defaultRateLimit: 1_000, restrictedAddresses: [addressOf(2, 'bounds-restricted')] }, engine));
    await ensureChain(api.db, CHAIN);
    await upsertTokens(api.db, [{ chainId: CHAIN, address: TOKEN, type: 'ERC-20', name: null, symbol: null, decimals: null, totalSupply: null }]);
  });
  afterAll(() => api?.close());

  const expectSecurityHeaders = (headers: Record<string, unknown>, what: string) => {
    expect(headers['x-content-type-options'], what).toBe('nosniff');
    expect(headers['x-frame-options'], what).toBe('DENY');
    expect(headers['referrer-policy'], what).toBe('no-referrer');
    expect(String(headers['content-security-policy']), what).toContain("frame-ancestors 'none'");
  };

  it('JSON, errors, health, metrics, the OpenAPI document, /docs and the page', async () => {
    const keyed = (path: string) => `${path}${path.includes('?') ? '&' : '?'}apikey=${TEST_KEY}`;
    const cases: Array<[string, number]> = [
      [keyed(blocks), 200],
      [keyed(`/${CHAIN}/api/v2/tokens/${TOKEN}/holders`), 200],
      [blocks, 401],
      [keyed(`/${CHAIN}/api/v2/addresses/${addressOf(2, 'bounds-restricted')}/blocks-validated`), 403],
      [keyed(`/${CHAIN}/api/v2/tokens/0x12/holders`), 422],
      [keyed(`${blocks}?key=${'k'.repeat(300)}`), 422],
      [keyed(`/999/api/v2/tokens/${TOKEN}/holders`), 404],
      [keyed(`/${CHAIN}/api/v2/tokens/0x${'a'.repeat(2_100)}/holders`), 404], // the router's own limit, before any scope
      [keyed(`/${CHAIN}/api?module=token&action=tokenholdercount&contractaddress=${TOKEN}`), 200],
      ['/nothing/here', 404],
      ['/health', 200],
      ['/metrics', 200],
      ['/api/v2/openapi.json', 200],
      ['/docs', 200],
      ['/docs/static/index.css', 200],
    ];
    for (const [path, status] of cases) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      await res.arrayBuffer();
      expect(res.status, path.slice(0, 80)).toBe(status);
      expectSecurityHeaders(Object.fromEntries(res.headers), path.slice(0, 80));
      // the keyed API's answers belong to one key holder: kept by no cache on the way
      if (path.includes(`/${CHAIN}/api`) && path.length < 2_000) expect(res.headers.get('cache-control'), path.slice(0, 80)).toBe('no-store');
    }
    // /docs and / get a page policy that lets their own scripts run, nothing else
    const docs = await fetch(`http://127.0.0.1:${port}/docs/static/index.html`);
    expect(docs.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('a rate-limited answer and a database outage', async () => {
    const limited = await startTestApi(engine, { db: api.db, api: { defaultRateLimit: 1 } });
    try {
      const replies = await Promise.all([1, 2, 3].map(() => limited.app.inject(blocks)));
      const tooMany = replies.find((r) => r.statusCode === 429)!;
      expectSecurityHeaders(tooMany.headers, '429');
    } finally {
      await limited.app.close();
    }
    const broken = await openDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none' });
    const down = await startTestApi(engine, { db: broken });
    try {
      const res = await down.app.inject(`${blocks}?apikey=${TEST_KEY}`);
      expect(res.statusCode).toBe(503);
      expectSecurityHeaders(res.headers, '503');
    } finally {
      await down.app.close();
      await broken.close();
    }
  });
});

// PostgreSQL only: PGlite accepts statement_timeout but never fires it, and runs a statement on
// the event loop's thread, where no timer can interrupt it (src/db/client.ts).
describe.runIf(await postgresAvailable())('statement timeout (PostgreSQL)', () => {
  let api: TestApi;
  let url: string;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await freshDatabase('postgres');
    url = fresh.url!;
    drop = fresh.drop;
    api = await startTestApi('postgres', { db: fresh.db, api: { statementTimeoutMs: 300 } });
    await ensureChain(fresh.db, CHAIN);
    await upsertTokens(fresh.db, [{ chainId: CHAIN, address: TOKEN, type: 'ERC-20', name: null, symbol: null, decimals: null, totalSupply: null }]);
  });
  afterAll(async () => {
    await api?.app.close();
    await drop?.();
  });

  it('a statement held up past the timeout is cancelled and answered 503; the next one is served', async () => {
    // another session holds the blocks table: the page's statement waits for the lock
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE blocks IN ACCESS EXCLUSIVE MODE');
      const started = performance.now();
      const res = await within(5_000, api.app.inject(`${blocks}?apikey=${TEST_KEY}`), 'statement under a lock');
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ message: 'Service unavailable' });
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
      const etherscan = await within(5_000, api.app.inject(`/${CHAIN}/api?module=account&action=getminedblocks&address=${MINER}&apikey=${TEST_KEY}`), 'etherscan');
      expect(etherscan.statusCode).toBe(503);
      expect(etherscan.json()).toEqual({ status: '0', message: 'NOTOK', result: 'Error! Service unavailable' });
      // the indexer's connections keep no timeout: the same wait there is not cut short
      const untimed = api.db.query('SELECT count(*) FROM blocks');
      await new Promise((r) => setTimeout(r, 600));
      await locker.query('COMMIT');
      await untimed;
    } finally {
      await locker.end();
    }
    const after = await api.app.inject(`${blocks}?apikey=${TEST_KEY}`);
    expect(after.statusCode).toBe(200);
  });
});
