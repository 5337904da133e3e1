/**
 * Typed errors of the chain access layer. What a failure means (retry, fall over, split a log
 * range, give up) is decided in ./classify-failure.ts.
 */

export class RpcError extends Error {
  override readonly name: string = 'RpcError';
  readonly method: string | undefined;

  constructor(message: string, options: { method?: string | undefined; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.method = options.method;
  }
}

/** The node answered with a JSON-RPC error object. */
export class RpcResponseError extends RpcError {
  override readonly name: string = 'RpcResponseError';
  constructor(
    readonly code: number,
    readonly rpcMessage: string,
    readonly data: unknown,
    options: { method?: string | undefined; cause?: unknown } = {},
  ) {
    super(`${options.method ?? 'rpc'}: ${rpcMessage} (code ${code})`, options);
  }
}

/** The node does not serve the method (as opposed to failing while serving it). */
export class MethodNotSupportedError extends RpcResponseError {
  override readonly name: string = 'MethodNotSupportedError';
}

/** The node refused an eth_getLogs query as too big: fewer blocks per query are needed. */
export class LogRangeTooLargeError extends RpcResponseError {
  override readonly name: string = 'LogRangeTooLargeError';
  constructor(
    code: number,
    rpcMessage: string,
    data: unknown,
    /** the widest block span the node suggested, when its message names one */
    readonly suggestedSpan: bigint | null,
    options: { method?: string | undefined; cause?: unknown } = {},
  ) {
    super(code, rpcMessage, data, options);
  }
}

/** A transient transport fault: timeouts, 429, 5xx, resets, malformed bodies, mismatched ids. */
export class RpcTransportError extends RpcError {
  override readonly name: string = 'RpcTransportError';
  /** no answer within the timeout: for a heavy query, a hint to ask for less */
  readonly timedOut: boolean;
  constructor(
    message: string,
    readonly status: number | null,
    /** from a Retry-After header, already converted to milliseconds */
    readonly retryAfterMs: number | null,
    options: { method?: string | undefined; cause?: unknown; timedOut?: boolean } = {},
  ) {
    super(message, options);
    this.timedOut = options.timedOut ?? false;
  }
}

/** The response body was larger than the configured limit. Not transient: ask for less. */
export class ResponseTooLargeError extends RpcError {
  override readonly name: string = 'ResponseTooLargeError';
  constructor(
    readonly limitBytes: number,
    options: { method?: string | undefined; cause?: unknown } = {},
  ) {
    super(`response body exceeds ${limitBytes} bytes`, options);
  }
}

/** HTTP refusals that retrying will not cure (401, 403, 404, ...). */
export class RpcHttpError extends RpcError {
  override readonly name: string = 'RpcHttpError';
  constructor(
    readonly status: number,
    options: { method?: string | undefined; cause?: unknown } = {},
  ) {
    super(`${options.method ?? 'rpc'}: HTTP ${status}`, options);
  }
}

/** Transient faults persisted past the configured number of attempts. */
export class RetriesExhaustedError extends RpcError {
  override readonly name: string = 'RetriesExhaustedError';
  constructor(
    readonly attempts: number,
    readonly lastError: RpcError,
    options: { method?: string | undefined } = {},
  ) {
    super(`${options.method ?? 'rpc'}: gave up after ${attempts} attempts: ${lastError.message}`, {
      ...options,
      cause: lastError,
    });
  }
}

/**
 * Every RPC URL that answered serves another chain than the one configured. Not transient: the
 * index must not take another chain's blocks for a reorg of its own (the URLs are checked one
 * by one, each before its first use: ./client.ts).
 */
export class WrongChainError extends RpcError {
  override readonly name: string = 'WrongChainError';
  constructor(
    readonly expected: number,
    readonly served: ReadonlyArray<{ url: string; chainId: number }>,
  ) {
    super(`chain ${expected}: ${served.map((s) => `the RPC endpoint ${s.url} serves chain id ${s.chainId}`).join('; ')}, not ${expected}`);
  }
}

/** The caller's AbortSignal fired. */
export class RequestAbortedError extends RpcError {
  override readonly name: string = 'RequestAbortedError';
}

/** The node kept answering null for a block (or its receipts) past the allowed wait. */
export class BlockNotAvailableError extends RpcError {
  override readonly name: string = 'BlockNotAvailableError';
  constructor(
    readonly blockNumber: bigint,
    waitedMs: number,
    /** what was wrong with the node's last answer: none, or receipts or uncles of another block */
    readonly problem = 'block not available yet',
  ) {
    super(`block ${blockNumber} still not available after ${waitedMs} ms: ${problem}`);
  }
}

/** Data from the node that contradicts itself (e.g. receipts of another block). */
export class InconsistentChainDataError extends RpcError {
  override readonly name: string = 'InconsistentChainDataError';
}

// Faults detected by our own transports before viem parses the body.
export class MalformedResponseError extends Error {
  override readonly name = 'MalformedResponseError';
}
export class WrongResponseIdError extends Error {
  override readonly name = 'WrongResponseIdError';
}
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  constructor(readonly limitBytes: number) {
    super(`response body exceeds ${limitBytes} bytes`);
  }
}

/** A WebSocket connection ended (or was dropped by us) while calls were waiting on it. */
export class ConnectionClosedError extends Error {
  override readonly name = 'ConnectionClosedError';
}
