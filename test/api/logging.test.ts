import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { buildServer } from '../../src/api/server.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { createApiKey } from '../../src/db/queries/api-keys.js';
import type { FastifyInstance } from 'fastify';
import { freshDatabase } from '../support/databases.js';
import { apiConfig } from '../support/api.js';
import { addressOf } from '../support/seed.js';

describe('keys never reach the logs', () => {
  let app: FastifyInstance;
  let drop: () => Promise<void>;
  let key: string;
  let logged = '';

  beforeAll(async () => {
    const fresh = await freshDatabase('pglite');
    drop = fresh.drop;
    await ensureChain(fresh.db, 1);
    ({ key } = await createApiKey(fresh.db, 'log-check', null));
    const sink = new Writable({ write: (chunk, _enc, done) => ((logged += chunk.toString()), done()) });
    app = await buildServer({ db: fresh.db, api: apiConfig({ restrictedKey: 'the-secret' }), logger: pino({ level: 'debug' }, sink) });
  });
  afterAll(async () => {
    await app?.close();
    await drop?.();
  });

  it('in the query, in headers, valid or not, and the restricted secret', async () => {
    const path = `/1/api/v2/addresses/${addressOf(1)}/blocks-validated`;
    await app.inject(`${path}?apikey=${key}&key=the-secret`);
    await app.inject({ url: path, headers: { 'x-api-key': key } });
    await app.inject({ url: path, headers: { authorization: `Bearer ${key}` } });
    await app.inject(`${path}?apikey=not-a-key-${key.slice(4)}`);
    await app.inject(`/1/api/v2/tokens/0x/holders?apikey=${key}`);
    expect(logged).toContain('"status":200');
    expect(logged).toContain('[redacted]');
    expect(logged).not.toContain(key);
    expect(logged).not.toContain(key.slice(4));
    expect(logged).not.toContain('the-secret');
  });
});
