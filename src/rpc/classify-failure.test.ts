import { HttpRequestError, RpcRequestError, TimeoutError } from 'viem';
import { describe, expect, it } from 'vitest';
import { batchRefusalOf, classifyFailure, isAuthRefusal, parseRetryAfter, rateLimitOf, toRpcError } from './classify-failure.js';
import { LogRangeTooLargeError, MethodNotSupportedError, RpcHttpError, RpcTransportError } from './errors.js';

const rpcError = (code: number, message: string) =>
  new RpcRequestError({ body: { method: 'eth_getLogs' }, error: { code, message }, url: 'http://node' });
const httpError = (status: number, headers?: Record<string, string>) =>
  new HttpRequestError({ body: {}, status, url: 'http://node', ...(headers ? { headers: new Headers(headers) } : {}) });

describe('isAuthRefusal', () => {
  it.each([
    'Must be authenticated!',
    'Unauthorized: You must authenticate your request with an API key. Create an account on https://www.ankr.com/rpc/ and generate your personal API key for free.',
    'invalid project id',
    'API key is not allowed to access method',
    'invalid api key',
    'Forbidden',
  ])('a key refused: %s', (message) => {
    expect(isAuthRefusal(rpcError(-32000, message))).toBe(true);
    expect(isAuthRefusal(toRpcError(rpcError(-32000, message), 'eth_chainId'))).toBe(true);
  });

  it.each([
    'header not found',
    'no backend is serving this request',
    'Your app has exceeded its compute units per second capacity',
    'daily request count exceeded, request rate limited',
    'API key rate limit exceeded',
  ])('not a key refused: %s', (message) => {
    expect(isAuthRefusal(toRpcError(rpcError(-32000, message), 'eth_chainId'))).toBe(false);
  });
});

describe('classifyFailure', () => {
  it.each([
    ['Infura', 'query returned more than 10000 results. Try with this block range [0x10, 0x1f].', 16n],
    ['Alchemy', 'Log response size exceeded. this block range should work: [0x1000, 0x1063]', 100n],
    ['QuickNode', 'eth_getLogs is limited to a 10,000 range', 10_000n],
    ['Alchemy (span)', 'You can make eth_getLogs requests with up to a 2K block range', 2_000n],
    ['"maximum block range:"', 'Block range limit exceeded. Maximum block range: 500', 500n],
    ['"max is"', 'range is too large, max is 100', 100n],
    ['"range: …, max: …"', 'eth_getLogs block range too large, range: 5001, max: 5000', 5_000n],
    ['"exceeds limit" (result count, no span)', 'logs matched by query exceeds limit of 20000', null],
  ])('recognises a log-range refusal worded like %s', (_provider, message, span) => {
    expect(classifyFailure(rpcError(-32005, message), 'eth_getLogs').kind).toBe('log-range-too-large');
    const error = toRpcError(rpcError(-32005, message), 'eth_getLogs');
    expect(error).toBeInstanceOf(LogRangeTooLargeError);
    expect((error as LogRangeTooLargeError).suggestedSpan).toBe(span);
  });

  it('does not read a head-of-chain refusal or another method’s limit as a range problem', () => {
    expect(classifyFailure(rpcError(-32000, 'block range extends beyond current head block'), 'eth_getLogs').kind).toBe('rpc-error');
    expect(classifyFailure(rpcError(-32000, 'gas required exceeds allowance (exceeds max)'), 'eth_call').kind).toBe('rpc-error');
  });

  it.each([
    'EVM error OutOfGas',
    'EVM error InvalidOperandOOG',
    'EVM error MemoryOOG',
    'EVM error MemoryLimitOOG',
    'EVM error PrecompileOOG',
    'EVM error InvalidJump',
    'EVM error OpcodeNotFound',
    'EVM error OutOfOffset',
    'EVM error CallTooDeep',
    'out of gas',
    'execution reverted',
    'invalid jump destination',
    'return data out of bounds',
    'max call depth exceeded',
  ])('takes a call that fails inside the EVM as the contract\'s answer, whatever the code: %s', (message) => {
    // anvil answers these with -32603, which from a load balancer means a backend restarting
    expect(classifyFailure(rpcError(-32603, message), 'eth_call').kind).toBe('rpc-error');
    expect(classifyFailure(rpcError(-32603, 'internal error'), 'eth_call').kind).toBe('transient');
  });

  it.each([
    [-32601, 'Method not found'],
    [-32004, 'method eth_getBlockReceipts is not supported'],
    [-32000, 'the method trace_block does not exist/is not available'],
    [-32600, 'Unsupported method: debug_traceBlockByNumber. See available methods at https://docs'],
  ])('recognises unsupported methods (%s %s)', (code, message) => {
    expect(toRpcError(rpcError(code, message), 'trace_block')).toBeInstanceOf(MethodNotSupportedError);
  });

  it('treats rate limits, timeouts and server errors as transient, with Retry-After', () => {
    expect(classifyFailure(rpcError(429, 'Too Many Requests'))).toEqual({ kind: 'transient', retryAfterMs: null });
    expect(classifyFailure(rpcError(-32005, 'request rate exceeded'), 'eth_call').kind).toBe('transient');
    expect(classifyFailure(new TimeoutError({ body: {}, url: 'http://node' })).kind).toBe('transient');
    expect(classifyFailure(httpError(429, { 'retry-after': '7' }))).toEqual({ kind: 'transient', retryAfterMs: 7000 });
    for (const status of [500, 502, 503, 504]) expect(classifyFailure(httpError(status)).kind).toBe('transient');
    const timeout = toRpcError(new TimeoutError({ body: {}, url: 'http://node' }), 'eth_getLogs');
    expect(timeout).toBeInstanceOf(RpcTransportError);
    expect((timeout as RpcTransportError).timedOut).toBe(true);
  });

  it.each([
    [-32000, 'header not found'],
    [-32000, 'unknown block'],
    [-32001, 'Block not found'],
    [-32000, 'block 0x1a2b not available yet'],
  ])('retries a node that has not reached the block yet (%s %s): a load-balanced backend behind the others', (code, message) => {
    for (const method of ['eth_getBlockReceipts', 'trace_block', 'eth_call']) expect(classifyFailure(rpcError(code, message), method).kind).toBe('transient');
    expect(toRpcError(rpcError(code, message), 'trace_block')).toBeInstanceOf(RpcTransportError);
  });

  it('does not retry refusals that retrying cannot cure', () => {
    expect(toRpcError(httpError(401), 'eth_call')).toBeInstanceOf(RpcHttpError);
    expect(classifyFailure(httpError(413)).kind).toBe('response-too-large');
    expect(classifyFailure(rpcError(3, 'execution reverted')).kind).toBe('rpc-error');
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});

describe('batchRefusalOf', () => {
  // the nodes' and providers' own words (their sources and issue trackers), by calls or by bytes
  it.each([
    [-32600, 'batch too large', 40, 'calls', null],
    [-32000, 'batch limit 100 exceeded: 142 requests given', 142, 'calls', 100],
    [-32600, 'batch limit 3 exceeded: 10 requests given', 10, 'calls', 3],
    [-32005, 'Batch size limit exceeded', 40, 'calls', null],
    [-32005, 'Number of requests exceeds max batch size', 40, 'calls', null],
    [-32602, 'Number of requests in batch exceeds --rpc-max-batch-size.', 40, 'calls', null],
    [-32010, 'The batch request was too large', 40, 'calls', null],
    [-32600, 'Too many ["eth_getLogs"] methods in the batch', 40, 'calls', null],
    [-32000, 'Batch of more than 3 requests are not allowed on free tier', 40, 'calls', 3],
    [-32600, 'batch requests are not supported', 40, 'calls', 1],
    [-32003, 'response too large', 40, 'bytes', null],
    [-32005, 'MaxBatchResponseBodySize of 33554432 exceeded', 40, 'bytes', null],
  ])('%i %s (of %i calls): by %s, limit %s', (code, message, calls, by, limit) => {
    expect(batchRefusalOf({ code, message }, calls)).toMatchObject({ by, limit });
    expect(batchRefusalOf(rpcError(code, message), calls)).toMatchObject({ by, limit });
    // not a rate limit, whatever its code: waiting would not help
    expect(rateLimitOf({ code, message })).toBeNull();
  });

  it('reads HTTP 413 as a refusal by calls, and no number of the request body as its limit', () => {
    const error = new HttpRequestError({ body: [{ method: 'eth_getBlockByNumber', params: ['0x5'] }], status: 413, url: 'http://node' });
    expect(batchRefusalOf(error, 40)).toMatchObject({ by: 'calls', limit: null });
  });

  it.each([
    [-32005, 'query exceeds max block range 1000'],
    [-32005, 'rate limit exceeded'],
    [429, 'Too Many Requests'],
    [-32000, 'header not found'],
    [-32000, 'execution reverted'],
  ])('is not a batch refusal: %i %s', (code, message) => {
    expect(batchRefusalOf({ code, message }, 40)).toBeNull();
  });

  it('never refuses a batch of one: its error is the call\'s', () => {
    expect(batchRefusalOf({ code: -32600, message: 'batch too large' }, 1)).toBeNull();
  });
});
