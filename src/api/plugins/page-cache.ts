import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

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
  maxBytes?: number;
}

interface Entry {
  /** bytes, not the string: a hit then costs no UTF-8 encoding of the whole page */
  body: Buffer;
  expires: number;
}

/**
 * Serialized pages kept for a moment, keyed by the chain's indexed block and the request
 * without its key: hot pages (a token's top holders behind a UI) cost no query, and a page is
 * never older than the indexed block it was read at plus `ttlMs`. Auth, limits and the
 * restricted check still run on every request: only validation, the database read and the view
 * are skipped.
 */
export function pageCache(app: FastifyInstance, options: PageCacheOptions): void {
  if (options.ttlMs <= 0) return;
  const maxBytes = options.maxBytes ?? 64 * 2 ** 20;
  const entries = new Map<string, Entry>();
  let bytes = 0;
  const evict = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    bytes -= entry.body.length;
  };

  app.decorateRequest('pageCacheKey', null);
  // preValidation, after the chain scope's checks: only 200 answers are kept, so a request with
  // the same URL passed validation when it was first answered.
  app.addHook('preValidation', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.routeOptions.config?.pageCache) return;
    const key = `${request.chain.chainId}:${request.chain.indexedBlock ?? ''}:${withoutApiKey(request.url)}`;
    const entry = entries.get(key);
    if (entry && entry.expires > Date.now()) {
      return reply.header('content-type', 'application/json; charset=utf-8').header('x-cache', 'hit').send(entry.body);
    }
    evict(key);
    request.pageCacheKey = key;
  });
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const key = request.pageCacheKey;
    if (key === null || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    const body = Buffer.from(payload);
    entries.set(key, { body, expires: Date.now() + options.ttlMs });
    bytes += body.length;
    // Map order is insertion order: the oldest entries go first
    for (const oldest of entries.keys()) {
      if (bytes <= maxBytes) break;
      evict(oldest);
    }
    return payload;
  });
}

const API_KEY_PARAMETER = /[?&]apikey=[^&]*/i;

function withoutApiKey(url: string): string {
  const found = API_KEY_PARAMETER.exec(url);
  if (!found) return url;
  // keep the separator before the parameter, drop the one after it
  const rest = url.slice(found.index + found[0].length + 1);
  const kept = url.slice(0, found.index + 1);
  return rest === '' ? url.slice(0, found.index) : kept + rest;
}
