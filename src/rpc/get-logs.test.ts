import { afterEach, describe, expect, it } from 'vitest';
import { fixtureResult, startReplayServer, type ReplayServer, type ReplayServerOptions } from '../../test/support/replay-rpc.js';
import { LogRangeTooLargeError, RpcResponseError } from './errors.js';
import { AdaptiveLogSpan, fetchLogs, iterateLogs, type LogQuery } from './get-logs.js';
import { createRpcClient, type RpcClientOptions } from './client.js';
import type { RpcLog } from './types.js';
import { tokenEventTopicsFilter } from '../evm/token-events.js';

const recorded = fixtureResult<RpcLog[]>('ethereum-mainnet/logs-16000000-16000003.erc20-transfers.eth_getLogs.json');
const query: LogQuery = { fromBlock: 16_000_000n, toBlock: 16_000_003n, topics: tokenEventTopicsFilter() };
const keyOf = (log: RpcLog) => `${log.blockNumber}:${log.logIndex}`;

const servers: ReplayServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function setup(serverOptions: ReplayServerOptions = {}, clientOptions: Partial<RpcClientOptions> = {}) {
  const server = await startReplayServer({ sets: ['ethereum-mainnet'], ...serverOptions });
  servers.push(server);
  const rpc = createRpcClient({
    chainId: 1,
    urls: [server.url],
    ...clientOptions,
    retry: { baseDelayMs: 1, maxDelayMs: 5, ...clientOptions.retry },
  });
  return { server, rpc };
}

describe('fetchLogs', () => {
  it('fetches the recorded range in one query when the node allows it', async () => {
    const { server, rpc } = await setup();
    const logs = await fetchLogs(rpc, query);
    expect(logs.map(keyOf)).toEqual(recorded.map(keyOf));
    expect(server.callCount('eth_getLogs')).toBe(1);
  });

  it('uses the range the node suggests (Infura/Alchemy style)', async () => {
    const { server, rpc } = await setup({ maxLogBlockRange: 2n });
    const chunks = [];
    for await (const chunk of iterateLogs(rpc, query)) chunks.push([chunk.fromBlock, chunk.toBlock]);
    expect(chunks).toEqual([
      [16_000_000n, 16_000_001n],
      [16_000_002n, 16_000_003n],
    ]);
    expect(server.callCount('eth_getLogs')).toBe(3);
  });

  it.each([
    ['QuickNode', -32614, 'eth_getLogs is limited to a 10,000 range'],
    ['Infura-style result cap', -32005, 'query returned more than 10000 results'],
    ['Alchemy size cap', -32602, 'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size'],
    ['"too wide"', -32062, 'block range is too wide'],
    ['"too many logs"', -32000, 'Too many logs requested. Max logs per query is 100'],
    ['"exceed maximum block range"', -32000, 'exceed maximum block range: 1'],
  ])('splits on a %s refusal and still returns every log in order', async (_provider, code, message) => {
    const { server, rpc } = await setup({ maxLogResults: 170, logRangeError: { code, message } });
    const logs = await fetchLogs(rpc, query);
    expect(logs.map(keyOf)).toEqual(recorded.map(keyOf));
    expect(server.callCount('eth_getLogs')).toBeGreaterThan(4);
  });

  it('splits when a response exceeds the client’s size limit', async () => {
    const { rpc } = await setup({}, { maxResponseBytes: 150_000 });
    const logs = await fetchLogs(rpc, query);
    expect(logs).toHaveLength(431);
  });

  it('splits a query that keeps timing out', async () => {
    const { server, rpc } = await setup({}, { timeoutMs: 150, retry: { attemptsPerUrl: 1 } });
    server.injectFault({ kind: 'delay', ms: 400 }, { method: 'eth_getLogs', times: 2 });
    const span = new AdaptiveLogSpan({ initial: 4n });
    const logs = await fetchLogs(rpc, query, { span, roundsBeforeSplit: 2 });
    expect(logs).toHaveLength(431);
    expect(server.calls.filter((c) => c.fault === 'delay')).toHaveLength(2);
  });

  it('waits out an outage without shrinking the span', async () => {
    const { server, rpc } = await setup({}, { retry: { attemptsPerUrl: 1 } });
    server.injectFault({ kind: 'status', status: 503 }, { method: 'eth_getLogs', times: 5 });
    const span = new AdaptiveLogSpan({ initial: 4n });
    expect(await fetchLogs(rpc, query, { span })).toHaveLength(431);
    expect(span.current).toBe(8n);
  });

  it('throws what is not about size, and a single block that is still too big', async () => {
    const { server, rpc } = await setup();
    server.injectFault({ kind: 'rpc-error', code: -32602, message: 'invalid argument 0: hex string without 0x prefix' });
    await expect(fetchLogs(rpc, query)).rejects.toBeInstanceOf(RpcResponseError);

    const tiny = await setup({ maxLogResults: 100 });
    await expect(fetchLogs(tiny.rpc, query)).rejects.toBeInstanceOf(LogRangeTooLargeError);
  });
});

describe('AdaptiveLogSpan', () => {
  it('grows by doubling up to max', () => {
    const span = new AdaptiveLogSpan({ initial: 100n, max: 300n });
    span.grow();
    expect(span.current).toBe(200n);
    span.grow();
    expect(span.current).toBe(300n);
  });

  it('halves on refusal, or takes a smaller suggested span, never below min', () => {
    const span = new AdaptiveLogSpan({ initial: 1000n, min: 10n });
    span.shrink(1000n);
    expect(span.current).toBe(500n);
    span.shrink(500n, 123n);
    expect(span.current).toBe(123n);
    span.shrink(123n, 5000n); // a "suggestion" larger than what failed is ignored
    expect(span.current).toBe(61n);
    span.shrink(15n);
    expect(span.current).toBe(10n);
  });

  it('stays below a refused span until enough successes say the chain got quieter', () => {
    const span = new AdaptiveLogSpan({ initial: 1000n, probeAfterSuccesses: 3 });
    span.shrink(1000n);
    span.grow();
    expect(span.current).toBe(999n);
    span.grow();
    expect(span.current).toBe(999n);
    span.grow();
    expect(span.current).toBe(1998n);
  });
});
