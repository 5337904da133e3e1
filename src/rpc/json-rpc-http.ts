/**
 * JSON-RPC over HTTP as a viem transport: the batching and response-id checks of
 * ./json-rpc-batch.ts, each batch one POST. The body is read with our size cap so that an
 * oversized answer fails before it is buffered whole; a non-2xx answer is thrown as viem's
 * `http` transport throws it.
 */
import { HttpRequestError, RpcRequestError, type Transport } from 'viem';
import { BodyTooLargeError, MalformedResponseError } from './errors.js';
import type { RequestBudget } from './request-budget.js';
import { batchingJsonRpc, isRpcErrorBody, type JsonRpcBatchOptions, type RpcCall } from './json-rpc-batch.js';
import { credentialPair, maskAnswerErrors, maskerOf, rpcUrlSecrets } from './url-secrets.js';

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
  /** the URL refused a batch for its size; fewer calls go at once from now on (./json-rpc-batch.ts) */
  onBatchCap?: JsonRpcBatchOptions['onBatchCap'];
  /** requests in flight and calls per second to this URL (./request-budget.ts); none = unbounded */
  budget?: RequestBudget;
  lane?: JsonRpcBatchOptions['lane'];
  batchCap?: JsonRpcBatchOptions['batchCap'];
}

export function jsonRpcHttp(url: string, options: JsonRpcHttpOptions): Transport {
  const { fetchUrl, headers } = splitCredentials(url);
  const mask = maskerOf(rpcUrlSecrets(url));

  /** The parsed body of a 2xx answer; any other status is thrown as viem would. */
  const post = async (body: string, calls: RpcCall[], signal: AbortSignal | undefined): Promise<unknown> => {
    const response = await fetch(fetchUrl, { method: 'POST', headers, body, signal });
    const text = await readBodyCapped(response, options.maxResponseBytes);
    if (response.ok) {
      try {
        return maskAnswerErrors(JSON.parse(text), mask);
      } catch (error) {
        throw new MalformedResponseError(`malformed JSON response (${text.length} chars)`, { cause: error });
      }
    }
    throw refusal(response, mask(text), calls, fetchUrl);
  };

  return batchingJsonRpc({
    ...options,
    url: fetchUrl,
    send: post,
    failure: (calls, cause) => new HttpRequestError({ body: calls, cause, url: fetchUrl }),
    identity: { key: 'http', name: 'HTTP JSON-RPC', type: 'http' },
  });
}

/** What viem's http client throws for a non-2xx answer. */
function refusal(response: Response, text: string, calls: RpcCall[], url: string): Error {
  // whatever its Content-Type says: a proxy's 429 page labelled JSON lost its status and
  // Retry-After to the parse error, and was taken for a garbled answer (fast-chain review)
  let data: Record<string, unknown> | unknown[] | null;
  try {
    data = JSON.parse(text || '{}') as typeof data;
  } catch {
    data = { error: text };
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

/** fetch refuses URLs with credentials: they travel as a Basic Authorization header instead. */
export function splitCredentials(url: string): { fetchUrl: string; headers: Record<string, string> } {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  try {
    const parsed = new URL(url);
    const credentials = parsed.username ? credentialPair(parsed) : null;
    if (credentials !== null) {
      parsed.username = '';
      parsed.password = '';
      headers['authorization'] = `Basic ${btoa(credentials)}`;
    }
    return { fetchUrl: parsed.toString(), headers };
  } catch {
    return { fetchUrl: url, headers };
  }
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
