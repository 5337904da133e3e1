import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { Gauge, type Registry } from 'prom-client';
import { PageStore, type PageStoreStats } from '../page-store.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** 200 answers of this route may be served from the page cache */
    pageCache?: boolean;
  }
  interface FastifyRequest {
    pageCacheKey: string | null;
  }
}

export interface PageCacheOptions {
  /** how long a page may be served after it was read; 0 turns the cache off */
  ttlMs: number;
  /** the memory the cache may take: keys, bodies and per-entry overhead all count */
  maxBytes: number;
  /** how often expired pages are dropped when nobody asks for them (default: every second) */
  sweepIntervalMs?: number;
}

export interface PageCache {
  stats(): PageStoreStats;
}

/** `<length>:<text>`: no two different requests give the same key, whatever their characters. */
const part = (text: string) => `${text.length}:${text}`;

function queryPart(name: string, value: unknown): string {
  if (typeof value === 'string') return `${part(name)}=${part(value)}`;
  // repeated names (a list) or anything else: a different key from any single value
  return `${part(name)}=[${part(JSON.stringify(value) ?? '')}]`;
}

/**
 * The key of a request, from what the server parsed: the route, its path parameters and query
 * (decoded, so `%61pikey` is `apikey`), less the API key. Callers whose answers hold nothing of
 * their own share a URL's page. An answer with a key's private tags and watchlist names
 * (`request.privateCacheKey`, account/private-data.ts) is that key's alone: its cache key starts
 * with the key's id and generation as `<length>:<id>#<n>`, which no shared key does (they start with the chain id
 * and a newline).
 */
function cacheKey(route: string, request: FastifyRequest): string {
  const owner = request.privateCacheKey ?? null;
  let key = `${owner === null ? '' : `${part(owner)}\n`}${request.chain.chainId}\n${route}\n`;
  const params = request.params as Record<string, string>;
  for (const name in params) key += `${queryPart(name, params[name])}\n`;
  const query = request.query as Record<string, unknown>;
  for (const name in query) {
    const value = query[name];
    // a string apikey is the caller's, not the page's; any other apikey fails validation
    if (name === 'apikey' && typeof value === 'string') continue;
    key += `${queryPart(name, value)}&`;
  }
  return key;
}

/**
 * Serialized pages kept for a moment, per chain and indexed block: hot pages (a token's top
 * holders behind a UI) cost no query, and a page is never older than the indexed block it was
 * read at plus `ttlMs`. Auth, limits and the restricted check still run on every request: only
 * validation, the database read and the view are skipped. The hooks sit on the cached routes
 * only, after the scope's own (the chain scope's checks run first).
 */
export function pageCache(app: FastifyInstance, options: PageCacheOptions): PageCache {
  const store = new PageStore(options.ttlMs, options.maxBytes);
  if (options.ttlMs <= 0) return store;
  const sweeper = setInterval(() => store.sweep(performance.now()), options.sweepIntervalMs ?? 1_000).unref();
  app.addHook('onClose', async () => clearInterval(sweeper));
  app.decorateRequest('pageCacheKey', null);

  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.config?.pageCache) return;
    const url = route.url;
    // Only 200 answers are kept, so a request with the same key passed validation when it was
    // first answered: a hit may skip it.
    // (callback hooks: they are the cached page's path; a hit answers without calling done)
    const lookup = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      const key = cacheKey(url, request);
      const body = store.get(request.chain.chainId, request.chain.indexedBlock, key, performance.now());
      if (body !== undefined) {
        reply.header('content-type', 'application/json; charset=utf-8').header('x-cache', 'hit').send(body);
        return;
      }
      request.pageCacheKey = key;
      done();
    };
    const keep = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
      const key = request.pageCacheKey;
      if (key !== null && reply.statusCode === 200 && typeof payload === 'string') {
        store.set(request.chain.chainId, request.chain.indexedBlock, key, payload, performance.now());
      }
      done(null, payload);
    };
    route.preValidation = [...hookList(route.preValidation), lookup];
    route.onSend = [...hookList(route.onSend), keep];
  });
  return store;
}

const hookList = <T>(hooks: T | T[] | undefined): T[] => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]);

/** `explorer_api_page_cache_bytes` and `_entries`, read when /metrics is scraped. */
export function pageCacheMetrics(metrics: Registry, cache: PageCache): void {
  const series: Array<[string, string, keyof PageStoreStats]> = [
    ['explorer_api_page_cache_bytes', 'Memory the page cache counts against its budget (keys, bodies, per-entry overhead)', 'bytes'],
    ['explorer_api_page_cache_entries', 'Pages in the page cache', 'entries'],
  ];
  for (const [name, help, stat] of series) {
    new Gauge({
      name,
      help,
      registers: [metrics],
      collect() {
        this.set(cache.stats()[stat]);
      },
    });
  }
}
