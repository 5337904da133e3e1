/**
 * The per-URL half of the RPC client's retry policy (./client.ts): each URL retries transient
 * faults itself before the fallback moves on, skips itself for a cool-down once it keeps
 * failing, and is asked which chain it serves before its first use. One log line and one wait
 * per failure, shared by the calls of the batch that failed together.
 */
import type { Transport } from 'viem';
import { backoffDelay, sleep, unlessAborted } from './backoff.js';
import { classifyFailure, toRpcError } from './classify-failure.js';
import { RpcTransportError, WrongChainError } from './errors.js';
import { parseQuantity, toSafeNumber } from './quantity.js';
import type { RetryPolicy, RpcLogger } from './client.js';

export interface Endpoint {
  url: string;
  label: string;
  /** the chain id this URL serves, once asked (servedChain below) */
  chainId: number | null;
  /** asks this URL alone for its chain id, once (set when the transport is made) */
  servedChain: () => Promise<number>;
  /** epoch ms before which the server asked (Retry-After) not to be called */
  notBefore: number;
  /** epoch ms until which this URL is skipped while another is usable */
  cooldownUntil: number;
}

const availableFrom = (endpoint: Endpoint): number => Math.max(endpoint.notBefore, endpoint.cooldownUntil);

export interface RetryContext {
  chainId: number;
  logger: RpcLogger;
  policy: RetryPolicy;
  endpoints: Endpoint[];
  logged: WeakMap<object, Set<string>>;
  // per level: an error rethrown from the URL level to the round level must not find its old wait
  urlWaits: WeakMap<object, Promise<void>>;
  roundWaits: WeakMap<object, Promise<void>>;
}

/**
 * One timer for every call that failed with the same error (the calls of one batch), with the
 * delay of the first of them (the one whose log line is written): they wake in the same tick
 * and so travel as one batch again. Separate timers, even of equal length, could straddle a
 * millisecond and split the retry into several batches.
 */
export function sharedSleep(waits: WeakMap<object, Promise<void>>, error: unknown, delayMs: number, signal: AbortSignal | undefined): Promise<void> {
  if (typeof error !== 'object' || error === null) return sleep(delayMs, signal);
  let wait = waits.get(error);
  if (wait === undefined) {
    wait = sleep(delayMs);
    waits.set(error, wait);
  }
  return unlessAborted(wait, signal);
}

/** Wraps one URL's transport so that transient faults are retried on that URL first. */
export function withUrlRetries(inner: Transport, endpoint: Endpoint, context: RetryContext): Transport {
  const { policy, endpoints } = context;
  const anotherUsable = (now: number): boolean => endpoints.some((e) => e !== endpoint && availableFrom(e) <= now);
  // (our transports take no parameters from viem, whose fallback makes them anew per request)
  const own = inner({} as never);
  let asking: Promise<number> | null = null;
  endpoint.servedChain = () => {
    if (endpoint.chainId !== null) return Promise.resolve(endpoint.chainId);
    asking ??= (async () => {
      const id = toSafeNumber(parseQuantity((await own.request({ method: 'eth_chainId' } as never)) as string), 'chain id');
      endpoint.chainId = id;
      if (id !== context.chainId) {
        context.logger.warn({ chainId: context.chainId, url: endpoint.label, served: id }, 'RPC URL serves another chain; it will not be used');
      }
      return id;
    })().finally(() => (asking = null));
    return asking;
  };
  return ((parameters) => {
    const transport = inner(parameters);
    const request = (async (args: { method: string; params?: unknown }, requestOptions?: { signal?: AbortSignal }) => {
      if (availableFrom(endpoint) > Date.now() && anotherUsable(Date.now())) {
        throw new RpcTransportError(`${endpoint.label} is cooling down`, null, null, { method: args.method });
      }
      for (let attempt = 0; ; attempt++) {
        try {
          // with fallbacks, a URL is asked which chain it serves before its first use: one
          // serving another chain would look like a reorg as deep as the index (a lone URL is
          // asked at start: verifyChainId)
          if (endpoints.length > 1 && (await endpoint.servedChain()) !== context.chainId) break;
          const result: unknown = await transport.request(args as never, requestOptions as never);
          endpoint.cooldownUntil = 0;
          return result;
        } catch (error) {
          const { kind, retryAfterMs } = classifyFailure(error, args.method);
          if (kind !== 'transient' || requestOptions?.signal?.aborted) throw error;
          const now = Date.now();
          const waitMs = retryAfterMs === null ? null : Math.min(retryAfterMs, policy.maxRetryAfterMs);
          if (waitMs !== null) endpoint.notBefore = Math.max(endpoint.notBefore, now + waitMs);
          const lastAttempt = attempt + 1 >= policy.attemptsPerUrl;
          // A long Retry-After is a reason to use another URL now rather than wait here.
          const longWait = waitMs !== null && waitMs > policy.maxDelayMs && anotherUsable(now);
          if (lastAttempt || longWait) {
            if (endpoints.length > 1) endpoint.cooldownUntil = now + policy.urlCooldownMs;
            if (endpoints.length > 1) logOnce(context, error, 'info', { url: endpoint.label, method: args.method, reason: describe(error, args.method) }, 'RPC URL failing; trying the next one');
            throw error;
          }
          const delayMs = waitMs ?? backoffDelay(attempt, policy);
          logOnce(
            context,
            error,
            'warn',
            { url: endpoint.label, method: args.method, attempt: attempt + 1, delayMs, reason: describe(error, args.method) },
            'RPC request failed; retrying',
          );
          await sharedSleep(context.urlWaits, error, delayMs, requestOptions?.signal);
        }
      }
      throw wrongChainFailure(endpoint, context, args.method);
    }) as typeof transport.request;
    return { ...transport, request };
  }) as Transport;
}

/**
 * A URL serving another chain is set aside for good: the next URL is tried (a transient fault
 * to the fallback), unless every URL serves another chain, which no retry cures.
 */
function wrongChainFailure(endpoint: Endpoint, context: RetryContext, method: string): Error {
  endpoint.cooldownUntil = Number.POSITIVE_INFINITY;
  const wrong = context.endpoints.filter((e) => e.chainId !== null && e.chainId !== context.chainId);
  if (wrong.length === context.endpoints.length) return new WrongChainError(context.chainId, wrong.map((e) => ({ url: e.label, chainId: e.chainId! })));
  return new RpcTransportError(`${endpoint.label} serves chain id ${endpoint.chainId}, not ${context.chainId}`, null, null, { method });
}

function describe(error: unknown, method: string): string {
  return toRpcError(error, method).message;
}

export function logOnce(
  context: RetryContext,
  error: unknown,
  level: 'warn' | 'info',
  fields: Record<string, unknown>,
  message: string,
): void {
  const payload = { chainId: context.chainId, ...fields };
  if (typeof error !== 'object' || error === null) {
    context.logger[level](payload, message);
    return;
  }
  const messages = context.logged.get(error) ?? new Set<string>();
  context.logged.set(error, messages);
  if (messages.has(message)) {
    context.logger.debug(payload, message);
  } else {
    messages.add(message);
    context.logger[level](payload, message);
  }
}
