import { hash, randomBytes } from 'node:crypto';
import type { Queryable } from '../client.js';

/** A key's own fields' bounds, for `explorer keys create` and the admin API alike. */
export const KEY_NAME_MAX_LENGTH = 200;
/** requests per second a key may be given (the column is an integer) */
export const KEY_RATE_LIMIT_MAX = 1_000_000;

export interface ApiKeyRecord {
  id: number;
  name: string;
  prefix: string;
  rateLimit: number | null;
  createdAt: Date;
  revokedAt: Date | null;
}

/** Keys are stored as SHA-256 digests only; the clear key exists once, in create's answer. */
export function hashApiKey(key: string): string {
  // crypto.hash, one call: a third of createHash's time for a key (1.3 against 3.2 µs), paid on every request
  return hash('sha256', key, 'hex');
}

export async function createApiKey(
  db: Queryable,
  name: string,
  rateLimit: number | null,
): Promise<{ key: string; record: ApiKeyRecord }> {
  const key = `exp_${randomBytes(24).toString('base64url')}`;
  const rows = await db.query<KeyColumns>(
    `INSERT INTO api_keys (name, key_hash, prefix, rate_limit) VALUES ($1, $2, $3, $4)
     RETURNING id::text, name, prefix, rate_limit, created_at, revoked_at`,
    [name, hashApiKey(key), key.slice(0, 8), rateLimit],
  );
  return { key, record: toRecord(rows[0]!) };
}

/** The keys in id order: all of them, or `limit` after the id `afterId`. */
export async function listApiKeys(db: Queryable, page: { afterId?: number; limit?: number } = {}): Promise<ApiKeyRecord[]> {
  const rows = await db.query<KeyColumns>(
    `SELECT id::text, name, prefix, rate_limit, created_at, revoked_at FROM api_keys
     WHERE id > $1 ORDER BY api_keys.id LIMIT $2`,
    [page.afterId ?? 0, page.limit ?? null],
  );
  return rows.map(toRecord);
}

/** How many keys are active: the start banner tells "create one" from "use one of yours". */
export async function countActiveApiKeys(db: Queryable): Promise<number> {
  const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE revoked_at IS NULL');
  return rows[0]?.n ?? 0;
}

export async function revokeApiKey(db: Queryable, id: number): Promise<boolean> {
  const rows = await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id', [id]);
  return rows.length > 0;
}

/** The active key with this digest, or null. */
export async function findActiveApiKey(db: Queryable, keyHash: string): Promise<ApiKeyRecord | null> {
  const rows = await db.query<KeyColumns>(
    `SELECT id::text, name, prefix, rate_limit, created_at, revoked_at FROM api_keys
     WHERE key_hash = $1 AND revoked_at IS NULL`,
    [keyHash],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

interface KeyColumns {
  id: string;
  name: string;
  prefix: string;
  rate_limit: number | null;
  created_at: Date | string;
  revoked_at: Date | string | null;
}

function toRecord(r: KeyColumns): ApiKeyRecord {
  return {
    id: Number(r.id),
    name: r.name,
    prefix: r.prefix,
    rateLimit: r.rate_limit,
    createdAt: new Date(r.created_at),
    revokedAt: r.revoked_at === null ? null : new Date(r.revoked_at),
  };
}
