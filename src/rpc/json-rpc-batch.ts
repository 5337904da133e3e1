/**
 * JSON-RPC batching as a viem transport, whatever carries the bytes (HTTP: ./json-rpc-http.ts,
 * WebSocket: ./json-rpc-ws.ts): calls made in the same tick travel as one batch, and each answer
 * is checked for what viem's own transports do not check: every response id answers a request
 * id (viem pairs batch responses by sorting ids, so a proxy that mixes up or drops responses
 * would hand one call another call's result). A batch the URL refuses for its size is asked
 * again in smaller ones, and the URL keeps the size it takes (./batch-cap.ts).
 *
 * Each body is serialised and parsed exactly once (BENCHMARKS.md). Failures are reported with
 * viem's own error classes, built as its transports build them, so that classification
 * (./classify-failure.ts) and viem's `fallback` see no difference.
 */
import { createTransport, HttpRequestError, RpcRequestError, TimeoutError, WebSocketRequestError, type EIP1193RequestFn, type Transport } from 'viem';
import { WrongResponseIdError } from './errors.js';
import { BatchCap, type BatchCapChange } from './batch-cap.js';
import { batchRefusalOf, rateLimitOf } from './classify-failure.js';
import type { BatchRefusal } from './batch-refusal.js';
import type { Lane, RequestBudget } from './request-budget.js';

// a type, not an interface: viem's error classes take the body as an index signature
export type RpcCall = {
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

export interface JsonRpcBatchOptions {
  /** for error messages: the URL without credentials */
  url: string;
  chainId: number;
  /** JSON-RPC calls per batch, at most: fewer once the URL refuses a batch for its size */
  batchSize: number;
  /** how long calls wait to be batched together */
  batchWaitMs: number;
  /** per exchange (one batch, its re-ask included); 0 = none */
  timeoutMs: number;
  /** a batch came back out of order and is being asked again */
  onOutOfOrder: (calls: number) => void;
  /** the most calls a request carries moved: a refusal lowered it, or answers grew it back (./batch-cap.ts) */
  onBatchCap?: (change: BatchCapChange) => void;
  /** requests in flight and calls per second to this URL; none = unbounded */
  budget?: RequestBudget;
  /** whose calls these are: the pipeline's go first (./request-budget.ts) */
  lane?: Lane;
  /** the URL's batch cap, when other transports of the URL (another lane's) share what it learns */
  batchCap?: BatchCap;
  /** sends one batch body and resolves with the parsed answer; a refusal is thrown viem's way */
  send(body: string, calls: RpcCall[], signal: AbortSignal | undefined): Promise<unknown>;
  /** wraps a failure of `send` that is not already one of viem's request errors */
  failure(calls: RpcCall[], cause: Error): Error;
  /** viem's transport identity, e.g. `{ key: 'http', name: 'HTTP JSON-RPC', type: 'http' }` */
  identity: { key: string; name: string; type: string };
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

export function batchingJsonRpc(options: JsonRpcBatchOptions): Transport {
  let ids = 0;
  let canaries = 0;
  const cap = options.batchCap ?? new BatchCap(options.batchSize, options.onBatchCap);
  // Calls batch only with calls under the same AbortSignal: an abort must fail its own calls
  // alone, as with viem's transports.
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

  /**
   * The answers (result or error object) to `calls`, in their order. Calls the URL refused for the
   * batch's size (the whole batch, or those past its answer's byte limit) are asked again in
   * batches of the size it takes, each through the budget again: the caller sees their answers,
   * not the refusal.
   */
  const exchange = async (calls: RpcCall[], signal: AbortSignal | undefined): Promise<unknown[]> => {
    let answers: unknown[] | null;
    try {
      answers = await exchangeOnce(calls, signal);
    } catch (error) {
      const refusal = signal?.aborted ? null : batchRefusalOf(error, calls.length);
      if (refusal === null) throw error;
      cap.refused(refusal, calls.length, 0);
      return askInBatches(calls, signal);
    }
    if (answers === null) return askInBatches(calls, signal);
    const refused: number[] = [];
    let refusal: BatchRefusal | null = null;
    answers.forEach((answer, i) => {
      const said = isRpcErrorBody(answer) ? batchRefusalOf(answer.error, calls.length) : null;
      if (said === null) return;
      refused.push(i);
      refusal ??= said;
    });
    if (refusal === null) {
      cap.answered(calls.length);
      return answers;
    }
    // (by bytes, the calls answered before the first refused one fit)
    cap.refused(refusal, calls.length, refused[0]!);
    const again = await askInBatches(refused.map((i) => calls[i]!), signal);
    refused.forEach((i, k) => (answers[i] = again[k]));
    return answers;
  };

  const askInBatches = async (calls: RpcCall[], signal: AbortSignal | undefined): Promise<unknown[]> => {
    const batches: RpcCall[][] = [];
    const size = cap.calls;
    for (let i = 0; i < calls.length; i += size) batches.push(calls.slice(i, i + size));
    return (await Promise.all(batches.map((batch) => exchange(batch, signal)))).flat();
  };

  /**
   * One exchange of `calls` with the URL: their answers, in their order; null, sending nothing,
   * when the cap fell below their number while they waited for the budget (batches formed before
   * a refusal would only be refused in turn).
   */
  const exchangeOnce = async (calls: RpcCall[], signal: AbortSignal | undefined): Promise<unknown[] | null> => {
    const { budget } = options;
    // waiting for the budget is not part of the exchange's time limit
    const release = budget ? await budget.acquire(calls.length, signal, options.lane) : () => undefined;
    if (calls.length > cap.calls) {
      release();
      return null;
    }
    const exchangeSignal = new TimeLimit(options.timeoutMs, signal);
    try {
      // A URL that takes one call a request may take no batch at all, not even of one: the call
      // goes alone, as a plain request.
      const alone = cap.calls === 1 && calls.length === 1;
      let data = await options.send(JSON.stringify(alone ? calls[0] : calls), calls, exchangeSignal.signal);
      if (alone && !Array.isArray(data)) data = [data];
      checkResponseIds(calls, data);
      // JSON-RPC lets a server answer a batch in any order (Erigon, dshackle do), but answers
      // labelled with each other's ids look the same, and nothing in an eth_call or trace result
      // says which call it answers. So an answer out of order is asked for again with a canary
      // whose answer we know, the chain id: under its id must be exactly that.
      if (outOfOrder(calls, data)) {
        options.onOutOfOrder(calls.length);
        const canary: RpcCall = { jsonrpc: '2.0', id: `canary-${++canaries}`, method: 'eth_chainId', params: [] };
        const withCanary = [...calls, canary];
        await budget?.spend(withCanary.length, signal, options.lane);
        data = await options.send(JSON.stringify(withCanary), withCanary, exchangeSignal.signal);
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
      const answers = answersInOrder(calls, data);
      if (budget) answered(budget, answers, calls.length);
      return answers;
    } catch (error) {
      const limit = budget ? rateLimitOf(error) : null;
      if (limit) budget!.rateLimited(limit.retryAfterMs, calls.length);
      if (signal?.aborted) throw abortReason(signal);
      if (exchangeSignal.timedOut) throw new TimeoutError({ body: calls, url: options.url });
      if (isAbortError(error) || isViemRequestError(error)) throw error;
      throw options.failure(calls, error as Error);
    } finally {
      exchangeSignal.release();
      release();
    }
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
      if (queue.waiting.length >= cap.calls) flush(signal);
    });
    const { error, result } = answer as { error?: RpcErrorObject; result?: unknown };
    if (error) throw new RpcRequestError({ body: { method, params }, error, url: options.url });
    return result;
  };

  return () =>
    createTransport(
      {
        ...options.identity,
        // retries are the client's (./client.ts): per URL first, then across URLs
        retryCount: 0,
        timeout: options.timeoutMs,
        request: request as EIP1193RequestFn,
      },
      { url: options.url },
    );
}

/** Tells the budget an answer came, or that some of its calls were refused for rate (HTTP 200, JSON-RPC 429 or -32005 per call). */
function answered(budget: RequestBudget, answers: unknown[], calls: number): void {
  for (const answer of answers) {
    if (!isRpcErrorBody(answer)) continue;
    const limit = rateLimitOf(answer.error);
    if (limit) return budget.rateLimited(limit.retryAfterMs, calls);
  }
  budget.answered();
}

/** The caller's signal and the exchange's time limit, as one signal for the carrier. */
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

/**
 * One answer per call. A server that rejects a whole batch replies with a single error, bare or
 * in a one-element array, without an id or (geth) with the first call's: every call gets it.
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

/** The one error answering a batch of several calls (bare, or alone in an array), whatever its id. */
function wholeBatchError(data: unknown): { error: RpcErrorObject } | null {
  const only = Array.isArray(data) ? (data.length === 1 ? data[0] : undefined) : data;
  return isRpcErrorBody(only) ? only : null;
}

export function isRpcErrorBody(data: unknown): data is { error: RpcErrorObject } {
  if (typeof data !== 'object' || data === null) return false;
  const error = (data as Record<string, unknown>)['error'] as Record<string, unknown> | undefined;
  return typeof error?.['code'] === 'number' && typeof error['message'] === 'string';
}

function isViemRequestError(error: unknown): boolean {
  return (
    error instanceof HttpRequestError || error instanceof WebSocketRequestError || error instanceof RpcRequestError || error instanceof TimeoutError
  );
}

function isAbortError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

function outOfOrder(request: RpcCall[], response: unknown): boolean {
  return Array.isArray(response) && response.length === request.length && response.some((r, i) => idOf(r) !== String(request[i]!.id));
}

/** A response without an id carrying an error: the server refused the whole batch. */
export function isErrorWithoutId(item: unknown): boolean {
  if (typeof item !== 'object' || item === null) return false;
  const record = item as Record<string, unknown>;
  return record['error'] !== undefined && (record['id'] === null || record['id'] === undefined);
}

export function idOf(item: unknown): string {
  return typeof item === 'object' && item !== null ? String((item as Record<string, unknown>)['id']) : '<not an object>';
}

function checkResponseIds(requestBody: RpcCall[], responseBody: unknown): void {
  // A server that rejects a whole batch answers with one error, id-less or (geth) with the first
  // call's id; it is spread to every call. (An error hands no call another call's result.)
  if (isErrorWithoutId(responseBody)) return;
  if (Array.isArray(responseBody) && responseBody.length === 1 && isErrorWithoutId(responseBody[0])) return;
  if (requestBody.length > 1 && wholeBatchError(responseBody) !== null) return;
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
