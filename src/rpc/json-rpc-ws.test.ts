/**
 * JSON-RPC over WebSocket against a real node: anvil serves WebSocket on its HTTP port. A TCP
 * proxy in front of it drops connections (with calls in flight), refuses them for a while, or
 * goes silent without closing (half-open); a small WebSocket relay in front of its HTTP port
 * counts messages and answers wrongly on demand (wrong ids, an id-less batch refusal, garbage).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AddressInfo } from 'node:net';
import { startAnvil, type AnvilInstance } from '../devnet/anvil.js';
import { startTcpProxy, type TcpProxy } from '../../test/support/tcp-proxy.js';
import { createRpcClient, type RpcClient, type RpcClientOptions } from './client.js';
import { RequestAbortedError, ResponseTooLargeError, RpcResponseError } from './errors.js';

type RelayFault = 'wrong-ids' | 'id-less-error' | 'malformed' | 'silent';

interface Relay {
  url: string;
  /** messages received, each the array of methods it carried */
  messages: string[][];
  /** messages passed to the node: the number of calls of each (0: a plain call, not a batch) */
  forwarded: number[];
  inject(fault: RelayFault, times?: number): void;
  /** refuse batches of more calls than this as geth does (`none`: every batch, even of one call); null: take all */
  capBatches(cap: number | 'none' | null): void;
  close(): Promise<void>;
}

/** A WebSocket front for the node's HTTP endpoint, one message per batch, with injectable faults. */
async function startRelay(nodeUrl: string): Promise<Relay> {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  const messages: string[][] = [];
  const forwarded: number[] = [];
  const faults: RelayFault[] = [];
  let cap: number | 'none' | null = null;
  server.on('connection', (socket: WebSocket) => {
    socket.on('message', async (data) => {
      const parsed = JSON.parse(String(data)) as { id: number; method: string } | Array<{ id: number; method: string }>;
      const body = Array.isArray(parsed) ? parsed : [parsed];
      messages.push(body.map((c) => c.method));
      if (Array.isArray(parsed) && (cap === 'none' || (cap !== null && parsed.length > cap))) {
        return socket.send(JSON.stringify([{ jsonrpc: '2.0', id: parsed[0]!.id, error: { code: -32600, message: 'batch too large' } }]));
      }
      const fault = faults.shift();
      if (fault === 'silent') return;
      if (fault === 'malformed') return socket.send('{"jsonrpc":"2.0","id":');
      if (fault === 'id-less-error') return socket.send(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch refused' } }));
      forwarded.push(Array.isArray(parsed) ? parsed.length : 0);
      const answer = (await (await fetch(nodeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: String(data) })).json()) as
        | { id: number }
        | Array<{ id: number }>;
      if (fault === 'wrong-ids') for (const a of Array.isArray(answer) ? answer : [answer]) a.id += 1000;
      socket.send(JSON.stringify(answer));
    });
  });
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    messages,
    forwarded,
    inject: (fault, times = 1) => faults.push(...Array<RelayFault>(times).fill(fault)),
    capBatches: (to) => (cap = to),
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}

let anvil: AnvilInstance;
let proxy: TcpProxy;
let relay: Relay;
const clients: RpcClient[] = [];

beforeAll(async () => {
  anvil = await startAnvil({});
  proxy = await startTcpProxy(anvil.port);
  relay = await startRelay(anvil.url);
});
afterAll(async () => {
  await relay?.close();
  await proxy?.close();
  await anvil?.stop();
});
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
  proxy.restore();
  relay.messages.length = 0;
  relay.forwarded.length = 0;
  relay.capBatches(null);
});

function client(url: string, options: Partial<RpcClientOptions> = {}): RpcClient {
  const rpc = createRpcClient({ chainId: 31337, urls: [url], timeoutMs: 2_000, ...options, retry: { baseDelayMs: 20, maxDelayMs: 200, ...options.retry } });
  clients.push(rpc);
  return rpc;
}

const viaProxy = () => `ws://127.0.0.1:${proxy.port}`;

describe('JSON-RPC over WebSocket', () => {
  it('answers over ws:// with calls of one tick batched into one message', async () => {
    const rpc = client(relay.url);
    const [chainId, head, genesis] = await Promise.all([rpc.getChainId(), rpc.getBlockNumber(), rpc.getBlock(0n, false)]);
    expect(chainId).toBe(31337);
    expect(head).toBeGreaterThanOrEqual(0n);
    expect(genesis?.number).toBe('0x0');
    expect(relay.messages).toEqual([['eth_chainId', 'eth_blockNumber', 'eth_getBlockByNumber']]);
  });

  it('loses no call when the connection drops with calls in flight, and reconnects', async () => {
    const rpc = client(viaProxy());
    await rpc.getChainId();
    const inFlight = Array.from({ length: 20 }, (_, i) => rpc.getBlock(0n, i % 2 === 0));
    proxy.cut();
    proxy.restore();
    const blocks = await Promise.all(inFlight);
    expect(blocks.every((b) => b?.number === '0x0')).toBe(true);
  });

  it('waits out a node that refuses connections for a while (several failed reconnects)', async () => {
    const rpc = client(viaProxy());
    await rpc.getChainId();
    proxy.cut();
    setTimeout(() => proxy.restore(), 1_500);
    const started = Date.now();
    await expect(rpc.getChainId()).resolves.toBe(31337);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
  });

  it('gives up on a silent (half-open) connection after the timeout and connects again', async () => {
    const rpc = client(viaProxy(), { timeoutMs: 500 });
    await rpc.getChainId();
    proxy.stall();
    setTimeout(() => proxy.restore(), 200);
    await expect(rpc.getBlockNumber()).resolves.toBeGreaterThanOrEqual(0n);
  });

  it('asks again when the answers carry ids it did not send (after the timeout: they answer nothing), or do not parse', async () => {
    const rpc = client(relay.url, { timeoutMs: 500 });
    relay.inject('wrong-ids');
    relay.inject('malformed');
    await expect(rpc.getChainId()).resolves.toBe(31337);
    expect(relay.messages).toHaveLength(3);
  });

  it('gives every call of a refused batch the refusal, without retrying', async () => {
    const rpc = client(relay.url);
    relay.inject('id-less-error');
    const results = await Promise.allSettled([rpc.getBlockNumber(), rpc.getChainId()]);
    for (const result of results) expect(result).toMatchObject({ status: 'rejected', reason: { code: -32600, rpcMessage: 'batch refused' } });
    expect(results.every((r) => r.status === 'rejected' && r.reason instanceof RpcResponseError)).toBe(true);
    expect(relay.messages).toHaveLength(1);
  });

  it.each([3, 'none' as const])('a node that takes at most %s calls a message gets smaller ones; every answer is the node\'s', async (cap) => {
    relay.capBatches(cap);
    const rpc = client(relay.url);
    const blocks = await Promise.all(Array.from({ length: 12 }, (_, i) => rpc.getBlock(0n, i % 2 === 0)));
    expect(blocks.every((b) => b?.number === '0x0')).toBe(true);
    expect(relay.messages.length).toBeGreaterThan(relay.forwarded.length);
    // what reached the node: batches within the cap, or (none taken) plain calls
    expect(Math.max(...relay.forwarded)).toBeLessThanOrEqual(cap === 'none' ? 0 : cap);
  });

  it('refuses a message beyond its size limit without retrying', async () => {
    const rpc = client(viaProxy(), { maxResponseBytes: 300 });
    await expect(rpc.getBlock(0n, true)).rejects.toBeInstanceOf(ResponseTooLargeError);
  });

  it('fails calls after close() at once instead of retrying them', async () => {
    const rpc = client(viaProxy());
    await rpc.getChainId();
    rpc.close();
    await expect(rpc.getChainId()).rejects.toBeInstanceOf(RequestAbortedError);
  });
});
