import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureResult, startReplayServer, type ReplayServer, type ReplayServerOptions } from '../../test/support/replay-rpc.js';
import {
  MethodNotSupportedError,
  RequestAbortedError,
  ResponseTooLargeError,
  RetriesExhaustedError,
  RpcResponseError,
  RpcTransportError,
} from './errors.js';
import { createRpcClient, redactUrl, type RpcClientOptions, type RpcLogger } from './client.js';
import type { RpcBlock } from './types.js';

const BLOCK_18M = 'ethereum-mainnet/block-18000000.eth_getBlockByNumber.full.json';
const fast = { baseDelayMs: 2, maxDelayMs: 20, jitter: 0.5 };

interface LogEntry {
  level: 'warn' | 'info' | 'debug';
  fields: Record<string, unknown>;
  message: string | undefined;
}

function recordingLogger(): RpcLogger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry['level']) => (fields: Record<string, unknown>, message?: string) => {
    entries.push({ level, fields, message });
  };
  return { entries, warn: at('warn'), info: at('info'), debug: at('debug') };
}

const servers: ReplayServer[] = [];
async function serve(options: ReplayServerOptions = {}): Promise<ReplayServer> {
  const server = await startReplayServer({ sets: ['ethereum-mainnet'], ...options });
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A JSON-RPC endpoint answering each request body with `answer`'s text. */
async function rawServer(answer: (body: unknown, headers: IncomingHttpHeaders) => string): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(answer(JSON.parse(Buffer.concat(chunks).toString('utf8')), req.headers));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  rawServers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
const rawServers: Server[] = [];
afterEach(async () => {
  await Promise.all(rawServers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

function client(urls: string[], options: Partial<RpcClientOptions> = {}) {
  return createRpcClient({ chainId: 1, urls, timeoutMs: 2_000, ...options, retry: { ...fast, ...options.retry } });
}

describe('createRpcClient', () => {
  it('serves typed helpers and batches concurrent calls into one HTTP exchange', async () => {
    const server = await serve();
    const rpc = client([server.url]);
    const expected = fixtureResult<RpcBlock>(BLOCK_18M);
    const [chainId, block, receipts] = await Promise.all([
      rpc.getChainId(),
      rpc.getBlock(18_000_000n, true),
      rpc.getBlockReceipts(18_000_000n),
    ]);
    expect(chainId).toBe(1);
    expect(block?.hash).toBe(expected.hash);
    expect(receipts).toHaveLength(94);
    expect(server.calls).toHaveLength(1);
    expect(server.calls[0]).toMatchObject({ batch: true, methods: ['eth_chainId', 'eth_getBlockByNumber', 'eth_getBlockReceipts'] });
  });

  it('still batches concurrent calls with a client signal, whether they pass none, the same or one of their own', async () => {
    const server = await serve();
    const stopping = new AbortController();
    const rpc = client([server.url], { signal: stopping.signal });
    const caller = new AbortController();
    await Promise.all([rpc.getChainId(), rpc.getBlockNumber(), rpc.getChainId({ signal: stopping.signal })]);
    await Promise.all([rpc.getChainId({ signal: caller.signal }), rpc.getBlockNumber({ signal: caller.signal })]);
    expect(server.calls.map((c) => c.methods.length)).toEqual([3, 2]);
  });

  it.each([
    ['HTTP 500', { kind: 'status', status: 500 }],
    ['HTTP 502', { kind: 'status', status: 502 }],
    ['HTTP 503', { kind: 'status', status: 503 }],
    ['a truncated body', { kind: 'truncate' }],
    ['a reset connection', { kind: 'reset' }],
    ['response ids that answer other requests', { kind: 'wrong-id' }],
  ] as const)('retries %s and then returns the right answer', async (_name, fault) => {
    const server = await serve();
    server.injectFault(fault, { times: 2 });
    const logger = recordingLogger();
    const rpc = client([server.url], { logger });
    const block = await rpc.getBlock(18_000_000n, false);
    expect(block?.hash).toBe(fixtureResult<RpcBlock>(BLOCK_18M).hash);
    expect(server.calls.map((c) => c.fault)).toEqual([fault.kind, fault.kind, null]);
    const retries = logger.entries.filter((e) => e.level === 'warn');
    expect(retries).toHaveLength(2);
    expect(retries[0]?.fields).toMatchObject({ method: 'eth_getBlockByNumber', attempt: 1 });
  });

  it('retries the calls of a failed batch together, as one batch again', async () => {
    const server = await serve();
    server.injectFault({ kind: 'status', status: 503 });
    const rpc = client([server.url], { retry: { baseDelayMs: 20, maxDelayMs: 20, jitter: 1 } });
    const results = await Promise.all([rpc.getChainId(), rpc.getBlockNumber(), rpc.getBlock(18_000_000n, false)]);
    expect(results[0]).toBe(1);
    expect(server.calls.map((c) => c.methods.length)).toEqual([3, 3]);
  });

  it('retries a request that times out', async () => {
    const server = await serve();
    server.injectFault({ kind: 'delay', ms: 600 });
    const rpc = client([server.url], { timeoutMs: 150 });
    await expect(rpc.getBlockNumber()).resolves.toBe(19_900_000n);
    expect(server.calls).toHaveLength(2);
  });

  it('waits as long as Retry-After says on HTTP 429', async () => {
    const server = await serve();
    server.injectFault({ kind: 'status', status: 429, retryAfter: '1' });
    const logger = recordingLogger();
    const rpc = client([server.url], { logger });
    const started = Date.now();
    await rpc.getBlockNumber();
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(logger.entries.find((e) => e.message === 'RPC request failed; retrying')?.fields).toMatchObject({ delayMs: 1000, reason: 'eth_blockNumber: HTTP 429' });
    // and the URL's request budget was told: every request to it waits, at a lower rate
    expect(logger.entries.find((e) => e.message?.startsWith('RPC URL rate-limits us'))?.fields).toMatchObject({ retryAfterMs: 1000 });
  });

  it('a 429 whose body is not JSON though labelled so (a proxy\'s page) keeps its status and Retry-After', async () => {
    let refused = 0;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (refused++ === 0) {
          res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
          res.end('Too Many Requests');
          return;
        }
        const calls = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Array<{ id: number }>;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(calls.map((c) => ({ jsonrpc: '2.0', id: c.id, result: '0x10' }))));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    rawServers.push(server);
    const logger = recordingLogger();
    const rpc = client([`http://127.0.0.1:${(server.address() as AddressInfo).port}`], { logger });
    const started = Date.now();
    await expect(rpc.getBlockNumber()).resolves.toBe(16n);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(logger.entries.find((e) => e.message === 'RPC request failed; retrying')?.fields).toMatchObject({ delayMs: 1000, reason: 'eth_blockNumber: HTTP 429' });
    expect(logger.entries.find((e) => e.message?.startsWith('RPC URL rate-limits us'))?.fields).toMatchObject({ retryAfterMs: 1000 });
  });

  it("the background lane waits while the pipeline's calls do: under a cap, a pipeline call is not queued behind a background flood", async () => {
    const methods: string[] = [];
    const url = await rawServer((body) => {
      const calls = (Array.isArray(body) ? body : [body]) as Array<{ id: number; method: string }>;
      methods.push(...calls.map((c) => c.method));
      const answers = calls.map((c) => ({ jsonrpc: '2.0', id: c.id, result: c.method === 'eth_getCode' ? '0x' : '0x10' }));
      return JSON.stringify(Array.isArray(body) ? answers : answers[0]);
    });
    // 40 calls a second, batches of 10: the 200 contract checks take 5 s
    const rpc = client([url], { requestsPerSecond: 40, batchSize: 10, concurrency: 4 });
    const flood = Promise.all(Array.from({ length: 200 }, (_, i) => rpc.background.getCode(`0x${i.toString(16).padStart(40, '0')}`)));
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    await expect(rpc.getBlockNumber()).resolves.toBe(16n);
    // behind the flood it would have waited seconds; first in line, at most a batch's worth of rate
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(methods.filter((m) => m === 'eth_getCode').length).toBeLessThan(150);
    await flood;
    expect(methods.filter((m) => m === 'eth_getCode')).toHaveLength(200);
  });

  it('retries JSON-RPC rate-limit errors but not other JSON-RPC errors', async () => {
    const server = await serve();
    server.injectFault({ kind: 'rpc-error', code: -32005, message: 'daily request count exceeded, request rate limited' }, { times: 2 });
    const rpc = client([server.url]);
    await expect(rpc.getBlockNumber()).resolves.toBe(19_900_000n);
    expect(server.callCount('eth_blockNumber')).toBe(3);

    server.injectFault({ kind: 'rpc-error', code: 3, message: 'execution reverted' });
    const failure = rpc.call('0x0000000000000000000000000000000000000001', '0x');
    await expect(failure).rejects.toBeInstanceOf(RpcResponseError);
    await expect(failure).rejects.toMatchObject({ code: 3, rpcMessage: 'execution reverted' });
    expect(server.callCount('eth_call')).toBe(1);
  });

  it('reports an unsupported method as MethodNotSupportedError without retrying', async () => {
    const server = await serve({ unsupportedMethods: ['eth_getBlockReceipts'] });
    const rpc = client([server.url]);
    await expect(rpc.getBlockReceipts(18_000_000n)).rejects.toBeInstanceOf(MethodNotSupportedError);
    expect(server.callCount('eth_getBlockReceipts')).toBe(1);
  });

  it('never gives up on transient faults by default', async () => {
    const server = await serve();
    server.injectFault({ kind: 'status', status: 503 }, { times: 20 });
    const rpc = client([server.url]);
    await expect(rpc.getBlockNumber()).resolves.toBe(19_900_000n);
    expect(server.calls).toHaveLength(21);
  });

  it('gives up after maxRounds with the last fault as cause', async () => {
    const server = await serve();
    server.injectFault({ kind: 'status', status: 503 }, { times: 100 });
    const rpc = client([server.url], { retry: { attemptsPerUrl: 2, maxRounds: 2 } });
    const error = await rpc.getBlockNumber().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect((error as RetriesExhaustedError).lastError).toBeInstanceOf(RpcTransportError);
    expect(((error as RetriesExhaustedError).lastError as RpcTransportError).status).toBe(503);
    expect(server.calls).toHaveLength(4);
  });

  it('falls over to the next URL and keeps away from a failing one for a while', async () => {
    const failing = await serve();
    const healthy = await serve();
    failing.injectFault({ kind: 'status', status: 502 }, { times: 1000 });
    const logger = recordingLogger();
    const rpc = client([failing.url, healthy.url], { logger, retry: { attemptsPerUrl: 3 } });
    await expect(rpc.getBlockNumber()).resolves.toBe(19_900_000n);
    expect(failing.calls).toHaveLength(3);
    await expect(rpc.getBlock(18_000_000n, false)).resolves.toMatchObject({ number: '0x112a880' });
    expect(failing.calls).toHaveLength(3);
    // with fallbacks, each URL is first asked which chain it serves (test/rpc/wrong-chain.test.ts)
    expect(healthy.calls.map((c) => c.methods)).toEqual([['eth_chainId'], ['eth_blockNumber'], ['eth_getBlockByNumber']]);
    expect(logger.entries.some((e) => e.level === 'info' && e.message?.includes('next'))).toBe(true);
  });

  it('accepts responses beyond viem’s 10 MiB default and refuses those beyond its own limit', async () => {
    const big = `0x${'ab'.repeat(6 * 1024 * 1024)}`; // 12 MiB of hex
    const server = await serve({ handlers: { eth_getCode: () => big } });
    await expect(client([server.url]).getCode('0x0000000000000000000000000000000000000001')).resolves.toHaveLength(big.length);

    const small = client([server.url], { maxResponseBytes: 100_000 });
    await expect(small.getBlock(18_000_000n, true)).rejects.toBeInstanceOf(ResponseTooLargeError);
    expect(server.callCount('eth_getBlockByNumber')).toBe(1);
  });

  it('stops retrying when the caller aborts', async () => {
    const server = await serve();
    server.injectFault({ kind: 'status', status: 503 }, { times: 1000 });
    const rpc = client([server.url], { retry: { baseDelayMs: 50, maxDelayMs: 50 } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 120);
    await expect(rpc.getBlockNumber({ signal: controller.signal })).rejects.toBeInstanceOf(RequestAbortedError);
  });

  it('stops retrying when the client’s own signal fires, for calls that passed none or their own', async () => {
    const server = await serve();
    server.injectFault({ kind: 'status', status: 503 }, { times: 1000 });
    const stopping = new AbortController();
    const rpc = client([server.url], { signal: stopping.signal, retry: { baseDelayMs: 50, maxDelayMs: 50 } });
    const started = Date.now();
    setTimeout(() => stopping.abort(), 120);
    const bare = rpc.getBlockNumber();
    const withOwn = rpc.getCode('0x0000000000000000000000000000000000000001', 'latest', { signal: new AbortController().signal });
    await expect(bare).rejects.toBeInstanceOf(RequestAbortedError);
    await expect(withOwn).rejects.toBeInstanceOf(RequestAbortedError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('sends credentials in the URL as Basic authorization, not in the URL', async () => {
    let authorization: string | undefined;
    const url = await rawServer((body, headers) => {
      authorization = headers.authorization;
      return JSON.stringify((body as Array<{ id: number }>).map(({ id }) => ({ jsonrpc: '2.0', id, result: '0x10' })));
    });
    const withCredentials = url.replace('http://', 'http://user:p%40ss@');
    await expect(client([withCredentials]).getBlockNumber()).resolves.toBe(16n);
    expect(authorization).toBe(`Basic ${Buffer.from('user:p@ss').toString('base64')}`);
  });

  it('gives every call of a batch the one error of a server that rejects the whole batch', async () => {
    const url = await rawServer(() => JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch refused' } }));
    const rpc = client([url]);
    const results = await Promise.allSettled([rpc.getBlockNumber(), rpc.getChainId()]);
    for (const result of results) {
      expect(result).toMatchObject({ status: 'rejected', reason: { code: -32600, rpcMessage: 'batch refused' } });
    }
  });

  it("masks the URL's key and credentials where a node echoes them in an error, and in the log lines of its retries", async () => {
    const secrets = ['S3cr3tPathKey', 'Qu3ryK3y99', 'S3cr3tPass', Buffer.from('l2ops:S3cr3tPass').toString('base64')];
    const echo = `for /v3/S3cr3tPathKey?apikey=Qu3ryK3y99 (user l2ops:S3cr3tPass, Basic ${secrets[3]}, ${encodeURIComponent('Qu3ryK3y99')})`;
    let refusals = 0;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number } | Array<{ id: number }>;
        const id = Array.isArray(body) ? body[0]!.id : body.id;
        // first a refusal in plain text (retried, so logged), then a JSON-RPC error (thrown)
        if (refusals++ < 1) {
          res.writeHead(503, { 'content-type': 'text/plain' });
          res.end(`overloaded ${echo}`);
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        const answer = { jsonrpc: '2.0', id, error: { code: -32602, message: `invalid params ${echo}`, data: { detail: echo } } };
        res.end(JSON.stringify(Array.isArray(body) ? [answer] : answer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    rawServers.push(server);
    const logger = recordingLogger();
    const url = `http://l2ops:S3cr3tPass@127.0.0.1:${(server.address() as AddressInfo).port}/v3/S3cr3tPathKey?apikey=Qu3ryK3y99`;
    const error: unknown = await client([url], { logger, batchSize: 1 }).getBlockNumber().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcResponseError);
    expect((error as RpcResponseError).message).toContain('invalid params for /v3/***?apikey=*** (user ***, Basic ***, ***)');
    expect(logger.entries.length).toBeGreaterThan(0);
    // what the node said is masked everywhere; the URL viem quotes in the error's causes is the
    // logger's to mask (cli/runtime.ts createLogger)
    const said = JSON.stringify(logger.entries) + String(error) + JSON.stringify((error as RpcResponseError).rpcMessage);
    for (const secret of secrets) expect(said).not.toContain(secret);
  });

  it('keeps API keys out of logged URLs', () => {
    expect(redactUrl('https://eth-mainnet.g.alchemy.com/v2/SECRETKEY')).toBe('https://eth-mainnet.g.alchemy.com/…');
    expect(redactUrl('http://127.0.0.1:8545')).toBe('http://127.0.0.1:8545');
  });

  it('names two URLs of one provider apart by their place in the list, still without their keys', async () => {
    const urls = ['http://127.0.0.1:9/v3/SECRET-A', 'http://127.0.0.1:9/v3/SECRET-B', 'http://localhost:9/v3/SECRET-C'];
    const client = createRpcClient({ chainId: 1, urls });
    try {
      expect((await client.urlChainIds()).map((u) => u.url)).toEqual(['http://127.0.0.1:9/… (URL 1)', 'http://127.0.0.1:9/… (URL 2)', 'http://localhost:9/…']);
    } finally {
      client.close();
    }
  });
});
