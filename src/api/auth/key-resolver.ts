import type { Queryable } from '../../db/client.js';
import { findActiveApiKey, hashApiKey } from '../../db/queries/api-keys.js';

export interface ResolvedKey {
  /** stable id for rate limiting and logs; never the key itself */
  id: string;
  rateLimit: number | null;
}

interface Entry {
  value: ResolvedKey | null;
  expires: number;
}

/**
 * Turns a presented key into its record without a database round trip per request: answers
 * are cached briefly (so a revocation takes effect within `ttlMs`), misses more briefly. The
 * cache is keyed by the presented key itself, so a cached answer costs no hash either (the
 * key is in this process's memory while the request is anyway).
 */
export class KeyResolver {
  private readonly cache = new Map<string, Entry>();
  private readonly staticKeys: Map<string, ResolvedKey>;

  constructor(
    private readonly db: Queryable,
    staticKeys: readonly string[],
    private readonly ttlMs = 5_000,
    private readonly missTtlMs = 1_000,
    private readonly maxEntries = 10_000,
  ) {
    this.staticKeys = new Map(
      staticKeys.map((key, i) => {
        const digest = hashApiKey(key);
        return [digest, { id: `env:${i}:${digest.slice(0, 8)}`, rateLimit: null }];
      }),
    );
  }

  async resolve(key: string): Promise<ResolvedKey | null> {
    const now = Date.now();
    const cached = this.cache.get(key);
    if (cached && cached.expires > now) return cached.value;
    const digest = hashApiKey(key);
    const value = this.staticKeys.get(digest) ?? (await this.fromDatabase(digest));
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, { value, expires: now + (value ? this.ttlMs : this.missTtlMs) });
    return value;
  }

  private async fromDatabase(digest: string): Promise<ResolvedKey | null> {
    const record = await findActiveApiKey(this.db, digest);
    return record ? { id: `db:${record.id}`, rateLimit: record.rateLimit } : null;
  }
}

/** The key from `apikey`, `x-api-key` or `Authorization: Bearer`, in that order. */
export function presentedKey(query: unknown, headers: Record<string, string | string[] | undefined>): string | null {
  const fromQuery = (query as Record<string, unknown> | undefined)?.apikey;
  if (typeof fromQuery === 'string' && fromQuery.length > 0) return fromQuery;
  const header = headers['x-api-key'];
  if (typeof header === 'string' && header.length > 0) return header;
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (match) return match[1]!;
  }
  return null;
}
