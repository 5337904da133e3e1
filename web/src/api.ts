// The server's own response types (its schemas), so the page is checked against what it is sent.
import type { AddressObject } from '../../src/api/schemas/address.js';
import type { BlockObject } from '../../src/api/schemas/blocks.js';
import type { HolderItem } from '../../src/api/schemas/holders.js';
import type { TokenCounters as TokenCountersSchema, TokenObject } from '../../src/api/schemas/tokens.js';
import type { HealthBody } from '../../src/api/schemas/health.js';
import type { Static } from '@sinclair/typebox';

export type Address = AddressObject;
export type Tag = Address['public_tags'][number];
export type Token = TokenObject;
export type Counters = TokenCountersSchema;
export type Holder = Static<typeof HolderItem>;
export type Block = BlockObject;

export type Params = Record<string, string | number>;

export interface Page<T> {
  items: T[];
  next_page_params: Params | null;
}

export type Health = HealthBody;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** seconds until the rate-limit window resets, on 429 */
    readonly retryAfter: number | null = null,
    readonly body: unknown = null,
  ) {
    super(message);
  }
}

/**
 * GET a JSON resource relative to the page (so a sub-path mount works). The key travels in a
 * header, never the URL, so it stays out of access logs and history.
 */
export async function getJson<T>(path: string, key: string | null, params: Params = {}, signal?: AbortSignal): Promise<T> {
  const url = new URL(path, document.baseURI);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, String(value));
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key) headers['x-api-key'] = key;
  let res: Response;
  try {
    res = await fetch(url, { headers, signal: signal ?? null });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ApiError(0, 'Cannot reach the server.');
  }
  const body: unknown = await res.json().catch(() => null);
  if (res.ok) return body as T;
  throw new ApiError(res.status, errorText(body, res.statusText), retrySeconds(res), body);
}

function errorText(body: unknown, fallback: string): string {
  if (body && typeof body === 'object') {
    const b = body as { message?: unknown; errors?: { detail?: unknown; source?: { pointer?: unknown } }[] };
    if (typeof b.message === 'string') return b.message;
    const first = b.errors?.[0];
    if (first && typeof first.detail === 'string') {
      const where = typeof first.source?.pointer === 'string' ? ` (${first.source.pointer.slice(1)})` : '';
      return `${first.detail}${where}`;
    }
  }
  return fallback || 'Request failed';
}

function retrySeconds(res: Response): number | null {
  const ms = Number(res.headers.get('x-ratelimit-reset'));
  return Number.isFinite(ms) && ms > 0 ? Math.ceil(ms / 1000) : null;
}
