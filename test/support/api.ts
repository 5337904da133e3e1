import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { buildServer } from '../../src/api/server.js';
import { defaultApiConfig, type ApiConfig } from '../../src/config/config.js';
import type { Database } from '../../src/db/client.js';
import { freshDatabase, type Engine } from './databases.js';

export const TEST_KEY = 'test-key-0123456789';

/** Listens on a free loopback port; returns the server's base URL. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return `http://127.0.0.1:${address.port}`;
}

export function apiConfig(overrides: Partial<ApiConfig> = {}): ApiConfig {
  return {
    ...defaultApiConfig(),
    port: 0,
    // high enough that suites never trip it unless they mean to
    defaultRateLimit: 100_000,
    staticApiKeys: [TEST_KEY],
    // suites read right after writing; the cache has its own test
    pageCacheMs: 0,
    ...overrides,
  };
}

export interface TestApi {
  db: Database;
  app: FastifyInstance;
  /** GET with the test key in `apikey`; returns status, headers and parsed JSON body */
  get(path: string, query?: Record<string, string | number>): Promise<{ status: number; headers: Record<string, unknown>; body: any }>;
  close(): Promise<void>;
}

export async function startTestApi(
  engine: Engine,
  options: { api?: Partial<ApiConfig>; redis?: Redis | null; db?: Database } = {},
): Promise<TestApi> {
  const fresh = options.db ? null : await freshDatabase(engine);
  const db = options.db ?? fresh!.db;
  const app = await buildServer({ db, api: apiConfig(options.api), redis: options.redis ?? null });
  return {
    db,
    app,
    async get(path, query = {}) {
      const params = new URLSearchParams({ apikey: TEST_KEY, ...Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])) });
      const res = await app.inject({ method: 'GET', url: `${path}?${params}` });
      return { status: res.statusCode, headers: res.headers, body: res.body ? JSON.parse(res.body) : null };
    },
    async close() {
      await app.close();
      await fresh?.drop();
    },
  };
}
