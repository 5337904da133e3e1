import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/api/server.js';
import type { Database } from '../../src/db/client.js';
import { apiConfig } from '../support/api.js';

// Serving files needs no data: an empty database stand-in keeps this suite to a second.
const emptyDb: Database = {
  engine: 'pglite',
  query: async () => [],
  transaction: (fn) => fn(emptyDb),
  exec: async () => {},
  close: async () => {},
};

// How the server serves the built page, on a stand-in build (the real one is covered in Chromium).
describe('web page files', () => {
  let built: FastifyInstance;
  let unbuilt: FastifyInstance;
  const dirs: string[] = [];
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'explorer-static-'));
    dirs.push(d);
    return d;
  };

  beforeAll(async () => {
    const root = dir();
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>x</title>');
    writeFileSync(join(root, 'assets', 'index-abc123.js'), 'export {};');
    writeFileSync(join(root, '.env'), 'SECRET=1');
    built = await buildServer({ db: emptyDb, api: apiConfig(), webRoot: root });
    unbuilt = await buildServer({ db: emptyDb, api: apiConfig(), webRoot: dir() });
  });
  afterAll(async () => {
    await built?.close();
    await unbuilt?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('/ is the page, revalidated on every load, under a strict content security policy', async () => {
    const res = await built.inject({ url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toMatch(/default-src 'none'; script-src 'self'; style-src 'self'/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it('hashed assets are cached for good', async () => {
    const res = await built.inject({ url: '/assets/index-abc123.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('no catch-all: unknown paths, dotfiles and traversal get the API JSON 404; API routes are untouched', async () => {
    for (const url of ['/nope', '/.env', '/assets/../../package.json', '/assets/missing.js', '/1/api/v2/unknown']) {
      const res = await built.inject({ url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toEqual({ message: 'Not found' });
    }
    expect((await built.inject({ url: '/health' })).json()).toEqual({ status: 'degraded', reasons: ['no chain is indexed in this database yet'], chains: [] });
  });

  it('not built: / says how to build it, the API still starts', async () => {
    const res = await unbuilt.inject({ url: '/' });
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain('npm run build');
    expect((await unbuilt.inject({ url: '/health' })).json().reasons).toEqual(['no chain is indexed in this database yet']);
  });

  it('the page files stay out of the OpenAPI document', async () => {
    const doc = (await built.inject({ url: '/api/v2/openapi.json' })).json();
    expect(Object.keys(doc.paths).filter((p) => !p.includes('/api') && p !== '/health')).toEqual([]);
  });
});
