/**
 * JSON-RPC over HTTP as a viem transport: calls made in the same tick travel as one batch, and
 * each answer is checked for what viem's own `http` transport does not check: the body is
 * complete JSON and every response id answers a request id (viem pairs batch responses by
 * sorting ids, so a proxy that mixes up or drops responses would hand one call another call's
 * result). The body is read with our size cap so that an oversized answer fails before it is
 * buffered whole.
 *
 * Each body is serialised and parsed exactly once: checking ids inside viem's `http` meant
 * parsing the request again, parsing the response, rebuilding it into a `Response` and viem
 * decoding and parsing it a second time, a sizeable share of the indexer's CPU (BENCHMARKS.md).
 * Failures are reported with viem's own error classes, built as its `http` transport builds
 * them, so that classification (./classify-failure.ts) and viem's `fallback` see no difference.
 */
import { createTransport, HttpRequestError, RpcRequestError, TimeoutError, type EIP1193RequestFn, type Transport } from 'viem';
import { BodyTooLargeError, MalformedResponseError, WrongResponseIdError } from './errors.js';

export interface JsonRpcHttpOptions {
  chainId: number;
  /** JSON-RPC calls per HTTP batch */
  batchSize: number;
  /** how long calls wait to be batched together */
  batchWaitMs: number;
  maxResponseBytes: number;
  /** per HTTP exchange (one batch, its re-ask included); 0 = none */
  timeoutMs: number;
  /** a batch came back out of order and is being asked again */
  onOutOfOrder: (calls: number) => void;
}

// a type, not an interface: viem's error classes take the body as an index signature
type RpcCall = {
  jsonrpc: '2.0';
  id: number | string;
  method: string;
  params: unknown;
};

interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

interface Waiting {
  call: RpcCall;
  resolve: (answer: unknown) => void;
  reject: (error: unknown) => void;
}

interface Queue {
  waiting: Waiting[];
  timer: ReturnType<typeof setTimeout>;
}

export function jsonRpcHttp(url: string, options: JsonRpcHttpOptions): Transport {
  const { fetchUrl, headers } = splitCredentials(url);
  let ids = 0;
  let canaries = 0;
  // Calls batch only with calls under the same AbortSignal: an abort must fail its own calls
  // alone, as with viem's http transport.
  const queues = new Map<AbortSignal | undefined, Queue>();

  const flush = (signal: AbortSignal | undefined): void => {
    const queue = queues.get(signal);
    if (queue === undefined) return;
    queues.delete(signal);
    clearTimeout(queue.timer);
    void settle(queue.waiting, signal);
  };

  const settle = async (waiting: Waiting[], signal: AbortSignal | undefined): Promise<void> => {
    const calls = waiting.map((w) => w.call);
    try {
      const answers = await exchange(calls, signal);
      waiting.forEach((w, i) => w.resolve(answers[i]));
    } catch (error) {
      // the same object for every call: retries and their log lines count failures, not calls
      for (const w of waiting) w.reject(error);
    }
  };

  /** The answers (result or error object) to `calls`, in their order. */
  const exchange = async (calls: RpcCall[], signal: AbortSignal | undefined): Promise<unknown[]> => {
    const exchangeSignal = new TimeLimit(options.timeoutMs, signal);
    try {
      let data = await post(JSON.stringify(calls), calls, exchangeSignal.signal);
      checkResponseIds(calls, data);
      // JSON-RPC lets a server answer a batch in any order (Erigon, dshackle do), but answers
      // labelled with each other's ids look the same, and nothing in an eth_call or trace result
      // says which call it answers. So an answer out of order is asked for again with a canary
      // whose answer we know, the chain id: under its id must be exactly that.
      if (outOfOrder(calls, data)) {
        options.onOutOfOrder(calls.length);
        const canary: RpcCall = { jsonrpc: '2.0', id: `canary-${++canaries}`, method: 'eth_chainId', params: [] };
        const withCanary = [...calls, canary];
        data = await post(JSON.stringify(withCanary), withCanary, exchangeSignal.signal);
        if (Array.isArray(data) && data.length > 1) {
          checkResponseIds(withCanary, data);
          const heard = (data as Array<Record<string, unknown>>).find((item) => item['id'] === canary.id);
          const said = heard?.['result'];
          if (typeof said !== 'string' || !/^0x[0-9a-f]+$/i.test(said) || BigInt(said) !== BigInt(options.chainId)) {
            throw new WrongResponseIdError(`batch answers are mislabelled: the chain-id canary got ${JSON.stringify(heard?.['result'] ?? heard?.['error'])}`);
          }
          data = data.filter((item) => item !== heard);
        }
      }
      return answersInOrder(calls, data);
    } catch (error) {
      if (signal?.aborted) throw abortReason(signal);
      if (exchangeSignal.timedOut) throw new TimeoutError({ body: calls, url: fetchUrl });
      if (isAbortError(error) || isViemRequestError(error)) throw error;
      throw new HttpRequestError({ body: calls, cause: error as Error, url: fetchUrl });
    } finally {
      exchangeSignal.release();
    }
  };

  /** The parsed body of a 2xx answer; any other status is thrown as viem would. */
  const post = async (body: string, calls: RpcCall[], signal: AbortSignal | undefined): Promise<unknown> => {
    const response = await fetch(fetchUrl, { method: 'POST', headers, body, signal });
    const text = await readBodyCapped(response, options.maxResponseBytes);
    if (response.ok) {
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        throw new MalformedResponseError(`malformed JSON response (${text.length} chars)`, { cause: error });
      }
    }
    throw refusal(response, text, calls, fetchUrl);
  };

  const request = async ({ method, params }: { method: string; params?: unknown }, requestOptions?: { signal?: AbortSignal }) => {
    const signal = requestOptions?.signal;
    const answer = await new Promise<unknown>((resolve, reject) => {
      let queue = queues.get(signal);
      if (queue === undefined) {
        queue = { waiting: [], timer: setTimeout(() => flush(signal), options.batchWaitMs) };
        queues.set(signal, queue);
      }
      queue.waiting.push({ call: { jsonrpc: '2.0', id: ++ids, method, params }, resolve, reject });
      if (queue.waiting.length >= options.batchSize) flush(signal);
    });
    const { error, result } = answer as { error?: RpcErrorObject; result?: unknown };
    if (error) throw new RpcRequestError({ body: { method, params }, error, url: fetchUrl });
    return result;
  };

  return () =>
    createTransport(
      {
        key: 'http',
        name: 'HTTP JSON-RPC',
        type: 'http',
        // retries are the client's (./rpc.ts): per URL first, then across URLs
        retryCount: 0,
        timeout: options.timeoutMs,
        request: request as EIP1193RequestFn,
      },
      { url },
    );
}

/** The caller's signal and the exchange's time limit, as one signal for fetch. */
class TimeLimit {
  readonly signal: AbortSignal | undefined;
  timedOut = false;
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout> | undefined;
  private readonly onCallerAbort: (() => void) | undefined;

  constructor(
    timeoutMs: number,
    private readonly caller: AbortSignal | undefined,
  ) {
    if (timeoutMs <= 0) {
      this.signal = caller;
      return;
    }
    this.signal = this.controller.signal;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, timeoutMs);
    if (caller) {
      this.onCallerAbort = () => this.controller.abort(caller.reason);
      if (caller.aborted) this.onCallerAbort();
      else caller.addEventListener('abort', this.onCallerAbort, { once: true });
    }
  }

  release(): void {
    clearTimeout(this.timer);
    if (this.onCallerAbort) this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}

/** What viem's http client throws for a non-2xx answer. */
function refusal(response: Response, text: string, calls: RpcCall[], url: string): Error {
  let data: Record<string, unknown> | unknown[] | null;
  if (response.headers.get('Content-Type')?.startsWith('application/json')) {
    data = JSON.parse(text) as typeof data;
  } else {
    try {
      data = JSON.parse(text || '{}') as typeof data;
    } catch {
      data = { error: text };
    }
  }
  const error = Array.isArray(data) && data.length === 1 ? data[0] : data;
  const { status, headers } = response;
  if (isRpcErrorBody(error)) return new RpcRequestError({ body: calls, error: error.error, headers, status, url });
  const details = (data as Record<string, unknown>)['error'];
  return new HttpRequestError({
    body: calls,
    details: (details === undefined ? undefined : JSON.stringify(details)) || response.statusText,
    headers,
    status,
    url,
  });
}

/**
 * One answer per call. A server that rejects a whole batch replies with a single error, bare or
 * in a one-element array (geth): every call gets it.
 */
function answersInOrder(calls: RpcCall[], data: unknown): unknown[] {
  if (Array.isArray(data) && data.length >= calls.length) {
    if (calls.length === 1) return [data[0]];
    const byId = new Map<string, unknown>();
    for (const item of data) byId.set(idOf(item), item);
    return calls.map((call) => byId.get(String(call.id)));
  }
  const error = Array.isArray(data) && data.length === 1 ? data[0] : data;
  if (!isRpcErrorBody(error)) throw new Error(`Expected ${calls.length} responses to batch request.`);
  return calls.map(() => error);
}

function isRpcErrorBody(data: unknown): data is { error: RpcErrorObject } {
  if (typeof data !== 'object' || data === null) return false;
  const error = (data as Record<string, unknown>)['error'] as Record<string, unknown> | undefined;
  return typeof error?.['code'] === 'number' && typeof error['message'] === 'string';
}

function isViemRequestError(error: unknown): boolean {
  return error instanceof HttpRequestError || error instanceof RpcRequestError || error instanceof TimeoutError;
}

function isAbortError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** fetch refuses URLs with credentials: they travel as a Basic Authorization header instead. */
function splitCredentials(url: string): { fetchUrl: string; headers: Record<string, string> } {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  try {
    const parsed = new URL(url);
    if (parsed.username) {
      const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
      parsed.username = '';
      parsed.password = '';
      headers['authorization'] = `Basic ${btoa(credentials)}`;
    }
    return { fetchUrl: parsed.toString(), headers };
  } catch {
    return { fetchUrl: url, headers };
  }
}

function outOfOrder(request: RpcCall[], response: unknown): boolean {
  return Array.isArray(response) && response.length === request.length && response.some((r, i) => idOf(r) !== String(request[i]!.id));
}

async function readBodyCapped(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new BodyTooLargeError(maxBytes);
  }
  if (!response.body) return response.text();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new BodyTooLargeError(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

function isErrorWithoutId(item: unknown): boolean {
  if (typeof item !== 'object' || item === null) return false;
  const record = item as Record<string, unknown>;
  return record['error'] !== undefined && (record['id'] === null || record['id'] === undefined);
}

function idOf(item: unknown): string {
  return typeof item === 'object' && item !== null ? String((item as Record<string, unknown>)['id']) : '<not an object>';
}

function checkResponseIds(requestBody: RpcCall[], responseBody: unknown): void {
  // A server that rejects a whole batch answers with one id-less error; it is spread to every call.
  if (isErrorWithoutId(responseBody)) return;
  if (Array.isArray(responseBody) && responseBody.length === 1 && isErrorWithoutId(responseBody[0])) return;
  if (!Array.isArray(responseBody)) throw new WrongResponseIdError('batch request answered with a single response');
  const expected = new Set(requestBody.map((call) => String(call.id)));
  if (responseBody.length !== expected.size) {
    throw new WrongResponseIdError(`batch of ${expected.size} answered with ${responseBody.length} responses`);
  }
  const seen = new Set<string>();
  for (const item of responseBody) {
    const id = idOf(item);
    if (!expected.has(id) || seen.has(id)) throw new WrongResponseIdError(`unexpected response id ${id} in batch`);
    seen.add(id);
  }
}
