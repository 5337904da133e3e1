import { createPublicClient, http, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestNode } from './anvil.js';
import { FAULT_KINDS, startFaultProxy, type FaultKind, type FaultProxy } from './fault-proxy.js';

interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

async function post(url: string, body: unknown, timeoutMs = 2_000): Promise<RawResponse> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const call = (method: string, params: unknown[] = [], id: number = 1) => ({ jsonrpc: '2.0', id, method, params });

describe('fault proxy', () => {
  const node = useTestNode({ chainId: 31337 });
  let proxy: FaultProxy;

  beforeAll(async () => {
    proxy = await startFaultProxy({ target: node().url, retryAfterSeconds: 2 });
    await node().mine(30);
  });
  afterAll(async () => {
    await proxy.close();
  });


  it('forwards to the real node when no fault applies', async () => {
    proxy.resetStats();
    const client = createPublicClient({ transport: http(proxy.url), cacheTime: 0 });
    expect(await client.getChainId()).toBe(31337);
    expect(await client.getBlockNumber()).toBe(await node().public.getBlockNumber());
    const block = await client.getBlock({ blockNumber: 5n });
    expect(block.hash).toBe((await node().public.getBlock({ blockNumber: 5n })).hash);
    // Writes go through too: the node really executes them.
    const hash = (await post(proxy.url, call('eth_sendTransaction', [{ from: node().accounts[0], to: node().accounts[1], value: '0x7' }])).then(
      (r) => (JSON.parse(r.text) as { result: Hex }).result,
    ));
    expect((await node().waitReceipt(hash)).status).toBe('success');
    const batch = JSON.parse((await post(proxy.url, [call('eth_chainId', [], 1), call('eth_blockNumber', [], 2)])).text) as { id: number }[];
    expect(batch.map((a) => a.id)).toEqual([1, 2]);
    const s = proxy.stats();
    expect(s.requests).toBe(s.forwarded);
    expect(FAULT_KINDS.every((k) => s[k] === 0)).toBe(true);
  });

  it('timeout: holds the request until the client gives up, or until hangMs', async () => {
    proxy.injectNext('timeout');
    await expect(post(proxy.url, call('eth_chainId'), 300)).rejects.toThrow(/timeout|aborted/i);
    expect(proxy.stats().timeout).toBeGreaterThanOrEqual(1);
    const quick = await startFaultProxy({ target: node().url, hangMs: 50 });
    try {
      quick.injectNext('timeout');
      const started = Date.now();
      await expect(post(quick.url, call('eth_chainId'), 2_000)).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(1_500);
    } finally {
      await quick.close();
    }
  });

  it('HTTP errors: 429 with and without Retry-After, 500, 502, 503', async () => {
    const expected: [FaultKind, number][] = [
      ['http429', 429],
      ['http429RetryAfter', 429],
      ['http500', 500],
      ['http502', 502],
      ['http503', 503],
    ];
    for (const [kind, status] of expected) {
      proxy.injectNext(kind);
      const res = await post(proxy.url, call('eth_chainId'));
      expect(res.status, kind).toBe(status);
      expect(res.headers.get('retry-after'), kind).toBe(kind === 'http429RetryAfter' ? '2' : null);
    }
    expect(proxy.stats()).toMatchObject({ http429: 1, http429RetryAfter: 1, http500: 1, http502: 1, http503: 1 });
  });

  it('reset: the connection is destroyed', async () => {
    const before = proxy.stats().reset;
    proxy.injectNext('reset');
    await expect(post(proxy.url, call('eth_chainId'))).rejects.toThrow(/fetch failed|socket|closed/i);
    expect(proxy.stats().reset).toBe(before + 1);
  });

  it('truncated and malformed: the real answer, damaged', async () => {
    const real = (await post(proxy.url, call('eth_chainId'))).text;
    proxy.injectNext('truncated');
    const truncated = await post(proxy.url, call('eth_chainId'));
    expect(truncated.status).toBe(200);
    expect(() => JSON.parse(truncated.text) as unknown).toThrow();
    expect(real.startsWith(truncated.text)).toBe(true);

    proxy.injectNext('malformed');
    const malformed = await post(proxy.url, call('eth_chainId'));
    expect(() => JSON.parse(malformed.text) as unknown).toThrow();
    expect(malformed.text.replace(/'/g, '"')).toBe(real);
  });

  it('wrongIds: batch answers come back under other ids', async () => {
    const batch = [call('eth_chainId', [], 1), call('eth_blockNumber', [], 2), call('net_version', [], 3)];
    proxy.injectNext('wrongIds');
    const answers = JSON.parse((await post(proxy.url, batch)).text) as { id: number; result: string }[];
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3]);
    expect(answers.every((a, i) => a.id !== batch[i]!.id)).toBe(true);
    // The answer to eth_chainId (first) now claims to be the answer to another request.
    expect(answers[0]!.result).toBe('0x7a69');
    expect(answers[0]!.id).not.toBe(1);
  });

  it('nullBlock: a numbered block comes back null while other calls are answered by the node', async () => {
    const batch = [call('eth_getBlockByNumber', ['0x3', false], 1), call('eth_chainId', [], 2), call('eth_getBlockByNumber', ['latest', false], 3)];
    proxy.injectNext('nullBlock');
    const answers = JSON.parse((await post(proxy.url, batch)).text) as { id: number; result: unknown }[];
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3]);
    expect(answers[0]!.result).toBeNull();
    expect(answers[1]!.result).toBe('0x7a69');
    expect(answers[2]!.result).not.toBeNull();
    // Not eligible without a numbered getBlockByNumber: the fault waits for a request that has one.
    proxy.injectNext('nullBlock');
    expect(JSON.parse((await post(proxy.url, call('eth_chainId'))).text)).toMatchObject({ result: '0x7a69' });
    const single = JSON.parse((await post(proxy.url, call('eth_getBlockByNumber', ['0x1', false]))).text) as { result: unknown };
    expect(single.result).toBeNull();
  });

  it('rangeTooLarge: eth_getLogs beyond maxLogRange is refused, shorter ranges are served', async () => {
    proxy.setMaxLogRange(10);
    try {
      const wide = JSON.parse((await post(proxy.url, call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x14' }]))).text) as {
        error?: { code: number; message: string };
      };
      expect(wide.error?.code).toBe(-32005);
      expect(wide.error?.message).toMatch(/range/);
      const narrow = JSON.parse((await post(proxy.url, call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x9' }]))).text) as { result?: unknown[] };
      expect(narrow.result).toEqual([]);
      // Tags are resolved against the node's head (30+ blocks here).
      const toLatest = JSON.parse((await post(proxy.url, call('eth_getLogs', [{ fromBlock: '0x0' }]))).text) as { error?: unknown };
      expect(toLatest.error).toBeDefined();
      const mixed = JSON.parse(
        (await post(proxy.url, [call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x40' }], 1), call('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x2' }], 2)])).text,
      ) as { id: number; error?: unknown; result?: unknown }[];
      expect(mixed.map((a) => [a.id, a.error !== undefined])).toEqual([[1, true], [2, false]]);
    } finally {
      proxy.setMaxLogRange(undefined);
    }
    proxy.injectNext('rangeTooLarge');
    const forced = JSON.parse((await post(proxy.url, call('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x1' }]))).text) as { error?: unknown };
    expect(forced.error).toBeDefined();
  });

  it('random faults at a seeded rate: reproducible, counted, and everything else forwarded', async () => {
    const run = async () => {
      const p = await startFaultProxy({ target: node().url, rate: 0.3, seed: 42, hangMs: 20 });
      let failed = 0;
      try {
        for (let i = 0; i < 100; i++) {
          try {
            const res = await post(p.url, call('eth_blockNumber', [], i), 1_000);
            const body = JSON.parse(res.text) as { id: number; result: string };
            if (res.status !== 200 || body.id !== i || !body.result.startsWith('0x')) failed++;
          } catch {
            failed++;
          }
        }
        return { failed, stats: p.stats() };
      } finally {
        await p.close();
      }
    };
    const a = await run();
    const injected = FAULT_KINDS.reduce((sum, k) => sum + a.stats[k], 0);
    expect(injected).toBe(a.failed);
    expect(a.failed).toBeGreaterThan(15);
    expect(a.failed).toBeLessThan(45);
    expect(a.stats.requests).toBe(100);
    expect(a.stats.forwarded).toBe(100 - a.stats.timeout - a.stats.reset - a.stats.http429 - a.stats.http429RetryAfter - a.stats.http500 - a.stats.http502 - a.stats.http503);
    const kindsSeen = FAULT_KINDS.filter((k) => a.stats[k] > 0);
    expect(kindsSeen.length).toBeGreaterThanOrEqual(5);
    const b = await run();
    // the seed fixes the draws; how many calls fell in one second is the machine's (88 or 100 seen)
    const draws = (stats: typeof a.stats) => ({ ...stats, maxCallsPerSecond: undefined });
    expect(draws(b.stats)).toEqual(draws(a.stats));
  });

  it('pause() turns it into a pure pass-through; resume() restores the rate', async () => {
    proxy.setRate(1);
    proxy.pause();
    proxy.resetStats();
    for (let i = 0; i < 10; i++) expect((await post(proxy.url, call('eth_chainId'))).status).toBe(200);
    expect(FAULT_KINDS.every((k) => proxy.stats()[k] === 0)).toBe(true);
    proxy.resume();
    await post(proxy.url, call('eth_chainId'), 300).catch(() => undefined);
    expect(FAULT_KINDS.reduce((sum, k) => sum + proxy.stats()[k], 0)).toBe(1);
    proxy.setRate(0);
  });

  it('methods: random faults only hit the listed methods', async () => {
    const p = await startFaultProxy({ target: node().url, rate: 1, weights: { http503: 1 }, methods: ['eth_getLogs'] });
    try {
      expect((await post(p.url, call('eth_chainId'))).status).toBe(200);
      expect((await post(p.url, call('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x1' }]))).status).toBe(503);
      expect(p.stats().http503).toBe(1);
    } finally {
      await p.close();
    }
  });
});
