import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { connect, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { buildServer } from '../../src/api/server.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { createApiKey, hashApiKey } from '../../src/db/queries/api-keys.js';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/client.js';
import { freshDatabase } from '../support/databases.js';
import { apiConfig } from '../support/api.js';
import { addressOf } from '../support/seed.js';
import { leakedSecrets } from '../support/secrets.js';

const SECRET = `restricted-${randomBytes(12).toString('hex')}`;
/** a static key an operator made with `openssl rand -hex`, 0x-prefixed: shaped like a hash */
const TEST_KEY_HEX = `0x${randomBytes(32).toString('hex')}`;
const path = `/1/api/v2/addresses/${addressOf(1)}/blocks-validated`;

const requestLines = (logged: string) => logged.split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');

/** Every character percent-encoded: `%61%70…`. */
const encodeAll = (text: string) => [...Buffer.from(text)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

describe('keys never reach the logs', () => {
  let app: FastifyInstance;
  let drop: () => Promise<void>;
  let db: Database;
  let key: string;
  let logged = '';
  const sent: string[] = [SECRET];
  /** a key of the right shape that is nobody's: sent, so it must not be logged either */
  const wrongKey = () => {
    const k = `exp_${randomBytes(24).toString('base64url')}`;
    sent.push(k);
    return k;
  };

  beforeAll(async () => {
    const fresh = await freshDatabase('pglite');
    drop = fresh.drop;
    db = fresh.db;
    await ensureChain(fresh.db, 1);
    ({ key } = await createApiKey(fresh.db, 'log-check', null));
    sent.push(key);
    const sink = new Writable({ write: (chunk, _enc, done) => ((logged += chunk.toString()), done()) });
    app = await buildServer({ db: fresh.db, api: apiConfig({ restrictedKey: SECRET }), logger: pino({ level: 'trace' }, sink) });
    // Whatever logs the request object itself (Fastify does on a 5xx of its default handler,
    // and so may any plugin) goes through the same serializers.
    app.addHook('onRequest', async (request) => request.log.warn({ req: request }, 'request object logged'));
    await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app?.close();
    await drop?.();
  });

  it('for any spelling of the parameter, in headers, valid or not, and the restricted secret', async () => {
    const urls = [
      `${path}?apikey=${key}&key=${SECRET}`,
      `${path}?%61pikey=${key}&%6bey=${SECRET}`, // percent-encoded names: the parser decodes them
      `${path}?${encodeAll('apikey')}=${encodeAll(key)}&${encodeAll('key')}=${encodeAll(SECRET)}`,
      `${path}?k%65y=${SECRET}&api%4Bey=${wrongKey()}`,
      `${path}?apikey[]=${key}&key[]=${SECRET}`,
      `${path}?apikey=${key}&apikey=${wrongKey()}&key=${SECRET}&key=${SECRET}`,
      `${path}?APIKEY=${wrongKey()}&api_key=${wrongKey()}&Key=${SECRET}`,
      `${path}?items_count=1&apikey=${encodeURIComponent(wrongKey())}`,
      `/1/api/v2/tokens/0x/holders?apikey=${key}&key=${SECRET}`, // 422
      `/1/api/v2/nothing?apikey=${key}&key=${SECRET}`, // 404
      `/1/api?module=token&action=tokenholdercount&contractaddress=${addressOf(2)}&apikey=${key}&key=${SECRET}`,
      // the Etherscan-style forms read names in any letter case: each spelling is the key
      `/v2/api?chainid=1&module=token&action=tokenholdercount&contractaddress=${addressOf(2)}&apiKey=${key}&Key=${SECRET}`,
      `/v2/api?chainid=1&module=token&action=tokenholdercount&APIKEY=${key}&KEY=${SECRET}&ApiKey=${wrongKey()}`,
      `/api?chainid=1&module=token&action=tokenholdercount&%41pikey=${key}&%4Bey=${SECRET}`,
      `/v2/api?chainid=424242&module=token&action=tokenholdercount&${encodeAll('APIKEY')}=${encodeAll(key)}`,
      `/1/api?Module=token&Action=tokenholdercount&ApIkEy=${wrongKey()}&kEy=${SECRET}`,
      `/health?apikey=${key}&key=${SECRET}`,
      `/docs?apikey=${key}`,
      `/1/api/v2/tokens/0x${'a'.repeat(2_100)}/holders?apikey=${key}&key=${SECRET}`, // router's max param length
      // in the path: after a percent-encoded `?`, pasted into a segment, encoded there
      `/v2/api%3Fchainid=1&module=token&action=tokenholdercount&apikey=${key}`,
      `/v2/api%3fchainid=1&apikey=${wrongKey()}&key=${SECRET}`,
      `${path}%3Fapikey=${key}`,
      `/1/api/v2/tokens/${key}/holders`,
      `/1/api/v2/tokens/${encodeAll(key)}/holders`,
      `/1/api/v2/addresses/${SECRET}/blocks-validated`,
      `/${key}`,
      `/1/api/v2/tokens/${addressOf(2)};apikey=${wrongKey()}/holders`,
      // pasted into a public parameter (pentest review): its value is not an address, number or word
      `${path}?items_count=${SECRET}`,
      `/1/api/v2/tokens/${addressOf(2)}/holders?address_hash=${key}&value=${wrongKey()}&block_number=${SECRET}`,
      `/v2/api?chainid=1&module=${key}&action=tokenholdercount&contractaddress=${SECRET}&page=${wrongKey()}`,
    ];
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    for (const url of urls) await (await fetch(`${base}${url}`)).arrayBuffer();
    const headerSets: Array<Record<string, string>> = [
      { 'x-api-key': key },
      { authorization: `Bearer ${key}` },
      { 'x-api-key': wrongKey() },
      { authorization: `Bearer ${wrongKey()}` },
    ];
    for (const headers of headerSets) {
      await (await fetch(`${base}${path}?key=${SECRET}`, { headers })).arrayBuffer();
    }
    expect(logged).toContain('"status":200');
    expect(logged).toContain('request object logged');
    expect(logged).toContain('apikey=[redacted]');
    expect(logged).toContain('items_count=1');
    expect(logged).toContain(`/v2/api?chainid=1&module=token&action=tokenholdercount&contractaddress=${addressOf(2)}&apikey=[redacted]&key=[redacted]`);
    expect(leakedSecrets(logged, sent)).toEqual([]);
    // what a path may still show: the routes' words, addresses and numbers
    expect(logged).toContain(`"url":"/1/api/v2/tokens/[redacted]/holders"`);
    expect(logged).toContain(`"url":"/v2/[redacted]"`);
    expect(logged).toContain(`"url":"${path}?key=[redacted]"`);
  });

  it('nor a static or admin key, or the secret, shaped like a number or an address in the path', async () => {
    const hexKey = `0x${randomBytes(20).toString('hex')}`;
    const digits = '73194062851904736251';
    let own = '';
    const sink = new Writable({ write: (chunk, _enc, done) => ((own += chunk.toString()), done()) });
    const server = await buildServer({
      db,
      api: apiConfig({ staticApiKeys: [TEST_KEY_HEX], adminKeys: [digits], restrictedKey: hexKey }),
      logger: pino({ level: 'info' }, sink),
    });
    try {
      for (const url of [
        `/1/api/v2/tokens/${TEST_KEY_HEX}/holders`,
        `/api/v2/admin/keys/${digits}`,
        `/1/api/v2/addresses/${hexKey}/blocks-validated`,
        `/1/api/v2/blocks/12345`,
        // the same in public parameters, where they are shaped like their values
        `/1/api/v2/addresses/${addressOf(1)}/blocks-validated?items_count=${digits}&address_hash=${hexKey}`,
        `/v2/api?chainid=1&module=token&action=tokenholdercount&contractaddress=${TEST_KEY_HEX}&apikey=${TEST_KEY_HEX}`,
      ]) {
        await server.inject({ method: 'GET', url });
      }
      await server.inject({ method: 'GET', url: '/1/api/v2/blocks/12345', headers: { 'x-api-key': TEST_KEY_HEX } });
    } finally {
      await server.close();
    }
    expect(leakedSecrets(own, [TEST_KEY_HEX, digits, hexKey])).toEqual([]);
    expect(own).toContain(`"url":"/1/api/v2/blocks/12345"`);
    // a static key is named by its place in the list, with nothing of its digest (pentest review)
    expect(own).toContain('"key":"env:0"');
    expect(own).not.toContain(hashApiKey(TEST_KEY_HEX).slice(0, 8));
  });

  it('a keyless budget without CORS origins, which can serve no one, is said at start', async () => {
    let own = '';
    const sink = new Writable({ write: (chunk, _enc, done) => ((own += chunk.toString()), done()) });
    for (const corsOrigins of [[], ['https://explorer.example']]) {
      const server = await buildServer({ db, api: apiConfig({ publicRateLimit: 5, corsOrigins }), logger: pino({ level: 'info' }, sink) });
      await server.close();
    }
    expect(own.match(/publicRateLimit is set but corsOrigins is empty/g)).toHaveLength(1);
  });

  it('refusals of a flood (401, 429, the Etherscan-style NOTOK ones too) are logged at most once a second each, saying how many were held back', async () => {
    let own = '';
    const sink = new Writable({ write: (chunk, _enc, done) => ((own += chunk.toString()), done()) });
    const server = await buildServer({ db, api: apiConfig({ defaultRateLimit: 1_000 }), logger: pino({ level: 'info' }, sink) });
    try {
      const wrong = () => `exp_${randomBytes(24).toString('base64url')}`;
      for (let i = 0; i < 30; i++) await server.inject({ url: `/v2/api?chainid=1&module=token&action=tokenholdercount&contractaddress=${addressOf(2)}&apikey=${wrong()}` });
      for (let i = 0; i < 30; i++) await server.inject({ url: `${path}?apikey=${wrong()}` });
      await new Promise((resolve) => setTimeout(resolve, 1_050));
      await server.inject({ url: `${path}?apikey=${wrong()}` });
      // answers that are no refusal are each logged
      for (let i = 0; i < 3; i++) await server.inject({ url: '/no/such/route' });
    } finally {
      await server.close();
    }
    const lines = requestLines(own);
    const refused = lines.filter((l) => l.status === 401 || l.refusedAs === 401);
    expect(refused.length).toBeLessThanOrEqual(3);
    expect(refused.at(-1)!.heldBack).toBeGreaterThanOrEqual(55);
    expect(refused.some((l) => l.status === 200 && l.refusedAs === 401)).toBe(true);
    expect(lines.filter((l) => l.status === 404)).toHaveLength(3);
  });

  it('nor does a malformed request, whose raw bytes Node keeps on the error', async () => {
    const port = (app.server.address() as AddressInfo).port;
    const raw = `GET ${path}?apikey=${key}&key=${SECRET} HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\nbroken header line\r\n\r\n`;
    const answer = await new Promise<string>((resolve, reject) => {
      let text = '';
      const socket = connect(port, '127.0.0.1', () => socket.write(raw));
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('{"message":"Bad request"}');
    expect(answer).toContain('x-content-type-options: nosniff');
    expect(leakedSecrets(logged, sent)).toEqual([]);
  });
});

describe('request lines say who asked, and answers carry the line\'s id', () => {

  it.each([
    ['directly', [] as string[], '127.0.0.1'],
    ['behind a trusted balancer (X-Forwarded-For)', ['127.0.0.1'], '203.0.113.9'],
  ])('%s: the client address, the key id, never the key; x-request-id = the line\'s reqId', async (_how, trustProxy, client) => {
    const fresh = await freshDatabase('pglite');
    let logged = '';
    const sink = new Writable({ write: (chunk, _enc, done) => ((logged += chunk.toString()), done()) });
    const app = await buildServer({ db: fresh.db, api: apiConfig({ trustProxy }), logger: pino({ level: 'info' }, sink) });
    try {
      await ensureChain(fresh.db, 1);
      const { key, record } = await createApiKey(fresh.db, 'who', null);
      await app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = app.server.address() as AddressInfo;
      const ids: string[] = [];
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'x-api-key': key, 'x-forwarded-for': '203.0.113.9' } });
        expect(res.status).toBe(200);
        ids.push(res.headers.get('x-request-id')!);
      }
      await app.close();
      const lines = requestLines(logged);
      expect(lines.map((l) => [l.reqId, l.ip, l.key])).toEqual(ids.map((id) => [id, client, `db:${record.id}`]));
      expect(new Set(ids).size).toBe(2);
      expect(logged).not.toContain(key);
    } finally {
      await app.close();
      await fresh.drop();
    }
  });
});
