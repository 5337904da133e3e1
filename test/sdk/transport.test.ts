import { describe, expect, it } from 'vitest';
import { createExplorerClient, ExplorerError, RateLimitedError, retryDelayMs, ServiceUnavailableError } from '../../src/index.js';
import { leakedSecrets } from '../support/secrets.js';

const TOKEN = '0x1111111111111111111111111111111111111111';
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/** A fetch that answers from a script and records every URL asked for. */
function scripted(...answers: Array<() => Response>) {
  const urls: URL[] = [];
  const fetch = (async (input: string | URL | Request) => {
    urls.push(new URL(String(input)));
    const next = answers.shift();
    if (!next) throw new Error('unexpected request');
    return next();
  }) as typeof globalThis.fetch;
  return { fetch, urls };
}

const holder = (value: string) => ({ address: { hash: TOKEN }, token_id: null, value });

describe('SDK transport (scripted fetch)', () => {
  it('builds the hosted API URL shape: {base}/{chain}/api/v2/…, apikey in the query', async () => {
    const { fetch, urls } = scripted(() => json(200, { items: [], next_page_params: null }));
    const client = createExplorerClient({ baseUrl: 'https://api.blockscout.com/', apiKey: 'K 1', fetch });
    await client.holders(1, TOKEN, { itemsCount: 25 });
    expect(urls[0]!.origin + urls[0]!.pathname).toBe(`https://api.blockscout.com/1/api/v2/tokens/${TOKEN}/holders`);
    expect(Object.fromEntries(urls[0]!.searchParams)).toEqual({ apikey: 'K 1', items_count: '25' });
  });

  it('follows next_page_params exactly as given: token_id and the echoed key included', async () => {
    const next = { address_hash: TOKEN, items_count: 2, value: '5', token_id: '7', key: 'secret' };
    const { fetch, urls } = scripted(
      () => json(200, { items: [holder('9'), holder('5')], next_page_params: next }),
      () => json(200, { items: [holder('1')], next_page_params: null }),
    );
    const client = createExplorerClient({ baseUrl: 'http://x', apiKey: 'k', fetch });
    const values: string[] = [];
    for await (const item of client.iterateHolders(10, TOKEN, { itemsCount: 2, key: 'secret' })) values.push(item.value);
    expect(values).toEqual(['9', '5', '1']);
    expect(Object.fromEntries(urls[1]!.searchParams)).toEqual({ apikey: 'k', items_count: '2', address_hash: TOKEN, value: '5', token_id: '7', key: 'secret' });
  });

  it('blocks: block_number and items_count passed back', async () => {
    const { fetch, urls } = scripted(
      () => json(200, { items: [{ height: 9 }], next_page_params: { block_number: 9, items_count: 1 } }),
      () => json(200, { items: [{ height: 8 }], next_page_params: null }),
    );
    const client = createExplorerClient({ baseUrl: 'http://x/prefix', apiKey: 'k', fetch });
    const heights: number[] = [];
    for await (const b of client.iterateValidatedBlocks(1, TOKEN, { itemsCount: 1 })) heights.push(b.height);
    expect(heights).toEqual([9, 8]);
    expect(urls[1]!.pathname).toBe(`/prefix/1/api/v2/addresses/${TOKEN}/blocks-validated`);
    expect(Object.fromEntries(urls[1]!.searchParams)).toEqual({ apikey: 'k', items_count: '1', block_number: '9' });
  });

  it('a server repeating the same position is an error, not an endless loop', async () => {
    const same = { address_hash: TOKEN, items_count: 1, value: '1' };
    const { fetch } = scripted(
      () => json(200, { items: [holder('1')], next_page_params: same }),
      () => json(200, { items: [holder('1')], next_page_params: same }),
    );
    const client = createExplorerClient({ baseUrl: 'http://x', apiKey: 'k', fetch });
    await expect(async () => {
      for await (const _ of client.iterateHolders(1, TOKEN)) void _;
    }).rejects.toThrow(/does not advance/);
  });

  it('429: waits x-ratelimit-reset milliseconds, then retries', async () => {
    const { fetch, urls } = scripted(
      () => json(429, { message: 'Too many requests' }, { 'x-ratelimit-reset': '40', 'retry-after': '9' }),
      () => json(429, { message: 'Too many requests' }, { 'x-ratelimit-reset': '40' }),
      () => json(200, { items: [], next_page_params: null }),
    );
    const client = createExplorerClient({ baseUrl: 'http://x', apiKey: 'k', fetch });
    const started = performance.now();
    expect(await client.holders(1, TOKEN)).toEqual({ items: [], next_page_params: null });
    expect(urls).toHaveLength(3);
    // two waits of 40 ms each, not Retry-After's 9 s (a lower bound only: no upper timing claim)
    expect(performance.now() - started).toBeGreaterThanOrEqual(75);
  });

  it('429 without x-ratelimit-reset: Retry-After seconds', () => {
    expect(retryDelayMs(new Headers({ 'retry-after': '2' }))).toBe(2_000);
    expect(retryDelayMs(new Headers({ 'x-ratelimit-reset': '250', 'retry-after': '2' }))).toBe(250);
    expect(retryDelayMs(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 7_000)).toBe(3_000);
    expect(retryDelayMs(new Headers())).toBeNull();
  });

  it('503 with Retry-After (busy, not down): waits it, not the key\'s rate-limit reset, then retries; 503 without it is an error at once', async () => {
    const { fetch, urls } = scripted(
      () => json(503, { message: 'Service unavailable' }, { 'retry-after': '1', 'x-ratelimit-reset': '5' }),
      () => json(200, { token_holders_count: '3', transfers_count: null }),
    );
    const client = createExplorerClient({ baseUrl: 'http://x', apiKey: 'k', fetch });
    const started = performance.now();
    expect(await client.holders(1, TOKEN)).toEqual({ token_holders_count: '3', transfers_count: null });
    expect(urls).toHaveLength(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);

    const down = scripted(() => json(503, { message: 'Service unavailable' }), () => json(200, {}));
    const outage = await createExplorerClient({ baseUrl: 'http://x', apiKey: 'k', fetch: down.fetch }).holders(1, TOKEN).catch((e: unknown) => e);
    expect(outage).toBeInstanceOf(ServiceUnavailableError);
    expect(down.urls).toHaveLength(1);
  });

  it('retries are bounded: after maxRetries the RateLimitedError surfaces', async () => {
    const limited = () => json(429, { message: 'Too many requests' }, { 'x-ratelimit-reset': '5' });
    const { fetch, urls } = scripted(limited, limited, limited);
    const client = createExplorerClient({ baseUrl: 'http://x', apiKey: 'secret-key', fetch, maxRetries: 2 });
    const error = await client.holders(1, TOKEN).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toBeInstanceOf(ExplorerError);
    expect((error as RateLimitedError).retryAfterMs).toBe(5);
    expect((error as RateLimitedError).url).not.toContain('secret-key');
    expect(urls).toHaveLength(3);
  });

  it('no key or secret in an error: its URL, message or body, however it is printed', async () => {
    const next = { block_number: 9, items_count: 1, key: 'restricted-SECRET-42' };
    const { fetch } = scripted(
      () => json(200, { items: [{ height: 10 }], next_page_params: next }),
      () => json(403, { message: 'Restricted access' }),
    );
    const client = createExplorerClient({ baseUrl: 'http://x', apiKey: 'api-KEY-0123456789', fetch });
    const error = await (async () => {
      for await (const _ of client.iterateValidatedBlocks(1, TOKEN, { key: 'restricted-SECRET-42' })) void _;
    })().catch((e: unknown) => e as ExplorerError);
    expect(error).toBeInstanceOf(ExplorerError);
    const printed = [error!.url, error!.message, String(error), JSON.stringify(error), error!.stack ?? ''].join('\n');
    expect(printed).toContain('key=***');
    expect(printed).toContain('apikey=***');
    expect(leakedSecrets(printed, ['api-KEY-0123456789', 'restricted-SECRET-42'])).toEqual([]);
  });

  it('a base URL carrying credentials is refused without quoting it', () => {
    expect(() => createExplorerClient({ baseUrl: 'http://user:pa55@x', apiKey: 'k', fetch: globalThis.fetch })).toThrow(/credentials/);
    try {
      createExplorerClient({ baseUrl: 'http://user:pa55@x', apiKey: 'k' });
    } catch (error) {
      expect(String(error)).not.toContain('pa55');
    }
  });

  it('an abort signal stops a wait', async () => {
    const { fetch } = scripted(() => json(429, {}, { 'x-ratelimit-reset': '30000' }));
    const client = createExplorerClient({ baseUrl: 'http://x', apiKey: 'k', fetch });
    const controller = new AbortController();
    const pending = client.holders(1, TOKEN, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 10);
    await expect(pending).rejects.toThrow('stop');
  });

  it('a non-JSON error body (a proxy page) still gives a typed error', async () => {
    const { fetch } = scripted(() => new Response('<html>bad gateway</html>', { status: 502 }));
    const client = createExplorerClient({ baseUrl: 'http://x', apiKey: 'k', fetch });
    const error = (await client.holders(1, TOKEN).catch((e: unknown) => e)) as ExplorerError;
    expect(error).toBeInstanceOf(ExplorerError);
    expect(error.status).toBe(502);
    expect(error.body).toBe('<html>bad gateway</html>');
  });
});
