import { ConnectionError, errorFor, ExplorerError } from './errors.js';
import { SECRET_PARAMETERS } from './secret-parameters.js';

export type QueryValue = string | number | undefined;

export interface TransportOptions {
  /** e.g. http://127.0.0.1:4000 or https://api.blockscout.com; chain and /api/v2 follow it */
  baseUrl: string;
  apiKey: string;
  /** defaults to the global fetch */
  fetch?: typeof fetch | undefined;
  /** retries after a 429 or a 503 with Retry-After, each after the wait the server asks for (default 5) */
  maxRetries?: number | undefined;
}

export interface Transport {
  get<T>(chainId: number | string, path: string, query: Record<string, QueryValue>, signal?: AbortSignal): Promise<T>;
  /** A call outside the chain's /api/v2 (the account API): `path` from the base URL on, a JSON body. */
  send<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown, query?: Record<string, QueryValue>, signal?: AbortSignal): Promise<T>;
}

/** Waits are bounded so a misbehaving server cannot park a client for hours. */
const MAX_WAIT_MS = 60_000;
const DEFAULT_WAIT_MS = 1_000;

/**
 * How long a 429 asks to wait: `x-ratelimit-reset` is milliseconds until the window resets
 * (this server and the reference); `Retry-After` (seconds or an HTTP date) is the standard
 * fallback.
 */
export function retryDelayMs(headers: Headers, now = Date.now()): number | null {
  const reset = headers.get('x-ratelimit-reset');
  if (reset !== null && /^\d+(\.\d+)?$/.test(reset.trim())) return Math.min(Number(reset), MAX_WAIT_MS);
  return retryAfterMs(headers, now);
}

/** `Retry-After` alone: what a busy 503 says (its rate-limit headers are about the key's budget). */
export function retryAfterMs(headers: Headers, now = Date.now()): number | null {
  const retryAfter = headers.get('retry-after');
  if (retryAfter === null) return null;
  if (/^\d+$/.test(retryAfter.trim())) return Math.min(Number(retryAfter) * 1000, MAX_WAIT_MS);
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? null : Math.min(Math.max(date - now, 0), MAX_WAIT_MS);
}

/**
 * Whether an answer is worth asking again, and after how long: a 429, and a 503 that says when
 * to come back (the server busy — too many counts at past blocks — rather than down).
 */
function retryWait(response: Response): { retry: boolean; waitMs: number | null } {
  if (response.status === 429) return { retry: true, waitMs: retryDelayMs(response.headers) };
  if (response.status === 503) {
    const waitMs = retryAfterMs(response.headers);
    return { retry: waitMs !== null, waitMs };
  }
  return { retry: false, waitMs: null };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The URL for error messages and logs: every secret parameter's value replaced. Built from the
 * parsed parameters (the names are decoded there), so no spelling of a name slips through.
 */
export function redactedUrl(url: URL): string {
  const copy = new URL(url);
  for (const name of new Set(copy.searchParams.keys())) {
    if (SECRET_PARAMETERS.has(name)) copy.searchParams.set(name, '***');
  }
  return copy.toString();
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return text;
  }
}

export function createTransport(options: TransportOptions): Transport {
  const base = options.baseUrl.replace(/\/+$/, '');
  // fetch refuses such URLs with an error that quotes the whole URL, the key included
  const parsedBase = new URL(base);
  if (parsedBase.username !== '' || parsedBase.password !== '') {
    throw new TypeError('baseUrl must not carry credentials (user:password@): pass the key as apiKey');
  }
  const doFetch = options.fetch ?? globalThis.fetch;
  const maxRetries = options.maxRetries ?? 5;

  const exchange = async <T>(url: URL, init: RequestInit, query: Record<string, QueryValue>, signal: AbortSignal | undefined): Promise<T> => {
    // The key travels as `apikey`, the one way both this server and the hosted API accept.
    url.searchParams.set('apikey', options.apiKey);
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined && name !== 'apikey') url.searchParams.set(name, String(value));
    }
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await doFetch(url, { ...init, ...(signal ? { signal } : {}) });
      } catch (error) {
        // a cancelled call is the caller's, not the network's
        if (signal?.aborted) throw error;
        throw new ConnectionError(redactedUrl(url), error);
      }
      if (response.status === 200) {
        const body = await readBody(response);
        if (typeof body !== 'object' || body === null) {
          throw new ExplorerError(200, 'response is not a JSON object', redactedUrl(url), body);
        }
        return body as T;
      }
      const body = await readBody(response);
      const { retry, waitMs } = retryWait(response);
      if (retry && attempt < maxRetries) {
        await sleep(waitMs ?? DEFAULT_WAIT_MS, signal);
        continue;
      }
      throw errorFor(response.status, body, redactedUrl(url), waitMs);
    }
  };

  return {
    get: <T>(chainId: number | string, path: string, query: Record<string, QueryValue>, signal?: AbortSignal) =>
      exchange<T>(new URL(`${base}/${chainId}/api/v2${path}`), { headers: { accept: 'application/json' } }, query, signal),
    send: <T>(method: string, path: string, body?: unknown, query: Record<string, QueryValue> = {}, signal?: AbortSignal) =>
      exchange<T>(
        new URL(`${base}${path}`),
        {
          method,
          headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        },
        query,
        signal,
      ),
  };
}
