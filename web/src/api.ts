// The server's own response types (its schemas), so the page is checked against what it is sent.
import type { AddressObject } from '../../src/api/schemas/address.js';
import type { BlockObject } from '../../src/api/schemas/blocks.js';
import type { HolderItem } from '../../src/api/schemas/holders.js';
import type { TokenCounters as TokenCountersSchema, TokenObject } from '../../src/api/schemas/tokens.js';
import type { HealthBody } from '../../src/api/schemas/health.js';
import type { Static } from '@sinclair/typebox';
import { sleep } from '../../src/rpc/backoff.js';

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

/** A request unanswered this long is given up, with a message, rather than left "Loading…". */
const TIMEOUT_MS = 30_000;
/** 429s waited out (the page asks for a list and its token together: a 1/s key had its list refused every time) */
const RATE_LIMIT_RETRIES = 3;
/** a longer wait than this is shown, not waited for */
const MAX_RATE_LIMIT_WAIT_S = 10;

/**
 * GET a JSON resource relative to the page (so a sub-path mount works). The key travels in a
 * header, never the URL, so it stays out of access logs and history. A 429 whose window resets
 * within seconds is waited out and asked again.
 */
export async function getJson<T>(path: string, key: string | null, params: Params = {}, signal?: AbortSignal): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await getJsonOnce<T>(path, key, params, signal);
    } catch (err) {
      const wait = err instanceof ApiError && err.status === 429 ? (err.retryAfter ?? 1) : null;
      if (wait === null || wait > MAX_RATE_LIMIT_WAIT_S || attempt >= RATE_LIMIT_RETRIES) throw err;
      await sleep(wait * 1000, signal);
    }
  }
}

async function getJsonOnce<T>(path: string, key: string | null, params: Params, signal: AbortSignal | undefined): Promise<T> {
  const url = new URL(path, document.baseURI);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, String(value));
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key) headers['x-api-key'] = key;
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  let res: Response;
  let body: unknown;
  try {
    res = await fetch(url, { headers, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    body = await res.json().catch(() => null);
  } catch (err) {
    if (signal?.aborted) throw err;
    if (timeout.aborted) throw new ApiError(0, `The server did not answer within ${TIMEOUT_MS / 1000} s.`);
    throw new ApiError(0, 'Cannot reach the server.');
  }
  if (res.ok) return body as T;
  throw new ApiError(res.status, errorText(body, res.statusText), retrySeconds(res), body);
}

/** The page's name for a parameter an error points at (the API's names are not what the user typed into). */
const FIELD_LABELS: Record<string, string> = { block_number: 'At block' };

function errorText(body: unknown, fallback: string): string {
  if (body && typeof body === 'object') {
    const b = body as { message?: unknown; errors?: { detail?: unknown; source?: { pointer?: unknown } }[] };
    if (typeof b.message === 'string') return b.message;
    const first = b.errors?.[0];
    if (first && typeof first.detail === 'string') {
      const field = typeof first.source?.pointer === 'string' ? first.source.pointer.slice(1) : null;
      const where = field === null ? '' : ` (${FIELD_LABELS[field] ?? field})`;
      return `${first.detail}${where}`;
    }
  }
  return fallback || 'Request failed';
}

function retrySeconds(res: Response): number | null {
  const ms = Number(res.headers.get('x-ratelimit-reset'));
  return Number.isFinite(ms) && ms > 0 ? Math.ceil(ms / 1000) : null;
}
