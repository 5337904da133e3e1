/**
 * The one place that decides what a failure of the chain access layer means: retry it, fall
 * over to another URL, split a log range, or give up.
 *
 * viem reports failures as a chain of causes (RpcRequestError → HttpRequestError → fetch error),
 * so classification walks that chain instead of trusting the outermost error.
 */
import {
  BodyTooLargeError,
  LogRangeTooLargeError,
  MalformedResponseError,
  MethodNotSupportedError,
  RequestAbortedError,
  ResponseTooLargeError,
  RetriesExhaustedError,
  RpcError,
  RpcHttpError,
  RpcResponseError,
  RpcTransportError,
  WrongChainError,
  WrongResponseIdError,
} from './errors.js';
import { batchRefusalIn, isBatchRefusalMessage, type BatchRefusal } from './batch-refusal.js';

/** What the cause chain of a failed request says, flattened. */
interface FailureFacts {
  status: number | null;
  headers: Headers | null;
  rpcCode: number | null;
  rpcMessage: string | null;
  rpcData: unknown;
  timedOut: boolean;
  aborted: boolean;
  malformed: boolean;
  wrongId: boolean;
  tooLarge: number | null;
  network: boolean;
  messages: string[];
}

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

function collectFacts(error: unknown): FailureFacts {
  const facts: FailureFacts = {
    status: null,
    headers: null,
    rpcCode: null,
    rpcMessage: null,
    rpcData: undefined,
    timedOut: false,
    aborted: false,
    malformed: false,
    wrongId: false,
    tooLarge: null,
    network: false,
    messages: [],
  };
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current !== null && current !== undefined && !seen.has(current)) {
    seen.add(current);
    if (typeof current !== 'object') {
      facts.messages.push(String(current));
      break;
    }
    const e = current as Record<string, unknown>;
    const name = typeof e['name'] === 'string' ? e['name'] : '';
    if (typeof e['message'] === 'string') facts.messages.push(e['message']);
    if (typeof e['details'] === 'string') facts.messages.push(e['details']);
    if (typeof e['status'] === 'number' && facts.status === null) facts.status = e['status'];
    if (e['headers'] instanceof Headers && facts.headers === null) facts.headers = e['headers'];
    if (name === 'TimeoutError') facts.timedOut = true;
    if (name === 'AbortError') facts.aborted = true;
    if (current instanceof MalformedResponseError || name === 'SyntaxError') facts.malformed = true;
    if (current instanceof WrongResponseIdError) facts.wrongId = true;
    if (current instanceof BodyTooLargeError) facts.tooLarge = current.limitBytes;
    if (name === 'ResponseBodyTooLargeError' && typeof e['maxSize'] === 'number') facts.tooLarge = e['maxSize'];
    if (typeof e['code'] === 'string' && NETWORK_CODES.has(e['code'])) facts.network = true;
    // 'fetch failed' is undici's message for any socket-level failure.
    if (name === 'TypeError' && e['message'] === 'fetch failed') facts.network = true;
    // The JSON-RPC error object itself is the innermost cause of viem's RpcRequestError.
    if (typeof e['code'] === 'number' && typeof e['message'] === 'string' && !(current instanceof Error)) {
      facts.rpcCode = e['code'];
      facts.rpcMessage = e['message'];
      facts.rpcData = e['data'];
    } else if (name === 'RpcRequestError' && typeof e['code'] === 'number') {
      facts.rpcCode ??= e['code'];
      if (typeof e['details'] === 'string') facts.rpcMessage ??= e['details'];
      facts.rpcData ??= e['data'];
    }
    current = e['cause'];
  }
  return facts;
}

/** Retry-After as seconds or an HTTP date; null when absent or unusable. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | null {
  if (value === null || value === undefined || value.trim() === '') return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

/**
 * What nodes say when a call fails inside the EVM: a revert, running out of gas (anvil's
 * `EVM error OutOfGas` and revm's other kinds of it, `MemoryOOG`, `MemoryLimitOOG`,
 * `InvalidOperandOOG`, `PrecompileOOG`; geth's `out of gas`), a bad opcode or jump, the stack,
 * the call depth, return data read out of bounds, or the gas cap. (A review's token whose
 * balanceOf underflowed a length got `InvalidOperandOOG`, read as a node fault, and held a
 * rollback for ever.)
 */
export const EXECUTION_FAILURE_MESSAGE =
  /revert|out of gas|OutOfGas|[a-z]OOG\b|invalid opcode|InvalidFEOpcode|OpcodeNotFound|invalid jump|InvalidJump|stack (?:over|under)flow|StackOverflow|StackUnderflow|max call depth|CallTooDeep|return data out of bounds|OutOfOffset|gas required exceeds|exceeds block gas limit/i;
/**
 * A node that has not reached the block asked about (a load-balanced provider's backend a few
 * blocks behind): geth's "header not found", Erigon's and Nethermind's wordings. Another backend,
 * or the same one a moment later, has it.
 */
const NOT_REACHED_MESSAGE = /header not found|unknown block|block not found|could not find block|block (?:#?\d+ |0x[0-9a-f]+ )?(?:is )?not (?:found|available|yet available)/i;
const RATE_LIMIT_MESSAGE = /rate.?limit|too many requests|request limit|exceeded .*(capacity|quota|credits|compute units)|throughput|per second/i;
const METHOD_UNSUPPORTED_MESSAGE =
  /method .*(not found|does not exist|is not available|not supported|unsupported|not allowed|not whitelisted|disabled)|(not|un)supported method|unknown method|method not found|no such method|not implemented/i;

// Provider wordings for "this eth_getLogs query is too big" (geth/erigon/nethermind defaults,
// Infura, Alchemy, QuickNode, Ankr, BlastAPI, Chainstack, dRPC, Cloudflare, ...). A head-related
// refusal ("beyond current head") is not a size problem and is deliberately not matched.
const LOG_RANGE_MESSAGE = new RegExp(
  [
    'query returned more than',
    'returned more than \\d',
    'more than [\\d,]+ (results|logs|blocks)',
    'too many (results|logs|blocks)',
    'log response size exceeded',
    'response size (exceeded|too large|should not)',
    'response is too (big|large)',
    'range (is )?too (large|wide|big|long)',
    '(block )?range (limit|exceeded|exceeds)',
    'exceed(s|ed)? (the )?(max(imum)?|limit)',
    'max(imum)? (block )?range',
    'limited to a? ?[\\d,]+',
    'up to a [\\d,]+k? block range',
    'query timeout exceeded',
    'logs? (matched|returned) .*exceeds? limit',
    'result (set )?(size|window) (is )?(too large|exceeded)',
  ].join('|'),
  'i',
);

function suggestedSpan(message: string): bigint | null {
  // Infura / Alchemy: "... this block range should work: [0x10, 0x2f]"
  const bracket = /\[\s*(0x[0-9a-f]+)\s*,\s*(0x[0-9a-f]+)\s*\]/i.exec(message);
  if (bracket?.[1] && bracket[2]) {
    const span = BigInt(bracket[2]) - BigInt(bracket[1]) + 1n;
    if (span > 0n) return span;
  }
  // "limited to a 10,000 range", "max: 5000", "up to a 2K block range", "maximum block range of 1000"
  const numeric = /(?:limited to a?|max(?:imum)?(?: block)?(?: range)?(?: is| of|:)?|up to a)\s*([\d,]+)(k?)/i.exec(message);
  if (numeric?.[1]) {
    const digits = numeric[1].replaceAll(',', '');
    if (digits !== '') {
      const span = BigInt(digits) * (numeric[2] ? 1000n : 1n);
      if (span > 0n) return span;
    }
  }
  return null;
}

export type FailureKind =
  /** retry after a delay (possibly on another URL) */
  | 'transient'
  /** the node cannot serve this method at all */
  | 'method-unsupported'
  /** eth_getLogs span or result set too big */
  | 'log-range-too-large'
  /** the body exceeded our limit */
  | 'response-too-large'
  /** any other JSON-RPC error: the answer, not a fault */
  | 'rpc-error'
  /** non-retryable HTTP status */
  | 'http-error'
  /** the caller aborted */
  | 'aborted'
  /** the URLs serve another chain (WrongChainError) */
  | 'wrong-chain';

export interface FailureClassification {
  kind: FailureKind;
  retryAfterMs: number | null;
}

/**
 * `method` narrows the wording checks: "exceeds max ..." means a too-big log query only when the
 * query was eth_getLogs.
 */
export function classifyFailure(error: unknown, method?: string): FailureClassification {
  if (error instanceof RpcError) return { kind: kindOfOwnError(error), retryAfterMs: retryAfterOf(error) };
  if (wrongChainIn(error) !== null) return { kind: 'wrong-chain', retryAfterMs: null };
  const facts = collectFacts(error);
  const retryAfterMs = parseRetryAfter(facts.headers?.get('retry-after'));
  const message = facts.rpcMessage ?? '';
  const mayBeLogRange = method === undefined || method === 'eth_getLogs';
  if (facts.tooLarge !== null) return { kind: 'response-too-large', retryAfterMs: null };
  if (facts.aborted && !facts.timedOut) return { kind: 'aborted', retryAfterMs: null };
  if (facts.rpcCode !== null) {
    if (mayBeLogRange && LOG_RANGE_MESSAGE.test(message)) return { kind: 'log-range-too-large', retryAfterMs: null };
    if (facts.rpcCode === -32601 || facts.rpcCode === -32004 || METHOD_UNSUPPORTED_MESSAGE.test(message)) {
      return { kind: 'method-unsupported', retryAfterMs: null };
    }
    // A call that fails in the EVM fails the same way every time (anvil says OutOfGas with
    // -32603): the contract's answer, not the node's fault, whatever the code.
    if (method === 'eth_call' && EXECUTION_FAILURE_MESSAGE.test(message)) return { kind: 'rpc-error', retryAfterMs: null };
    // 429 / -32005 (limit exceeded) / -32007 (QuickNode) are rate limits in JSON-RPC clothing;
    // -32603 is what load balancers answer while a backend is restarting.
    if ([429, -32005, -32007, -32603].includes(facts.rpcCode) || RATE_LIMIT_MESSAGE.test(message)) {
      return { kind: 'transient', retryAfterMs };
    }
    if (NOT_REACHED_MESSAGE.test(message)) return { kind: 'transient', retryAfterMs };
    if (facts.status === null || facts.status < 400) return { kind: 'rpc-error', retryAfterMs: null };
  }
  if (facts.status !== null) {
    if (facts.status === 413) return { kind: 'response-too-large', retryAfterMs: null };
    if ([408, 425, 429].includes(facts.status) || facts.status >= 500) return { kind: 'transient', retryAfterMs };
    if (facts.status >= 400) {
      const all = facts.messages.join(' ');
      if (mayBeLogRange && LOG_RANGE_MESSAGE.test(all)) return { kind: 'log-range-too-large', retryAfterMs: null };
      if (METHOD_UNSUPPORTED_MESSAGE.test(all)) return { kind: 'method-unsupported', retryAfterMs: null };
      return { kind: 'http-error', retryAfterMs: null };
    }
  }
  // Timeouts, resets, refused connections, truncated or garbled bodies, mixed-up ids, and
  // anything else that failed before an answer arrived.
  return { kind: 'transient', retryAfterMs };
}

function kindOfOwnError(error: RpcError): FailureKind {
  if (error instanceof MethodNotSupportedError) return 'method-unsupported';
  if (error instanceof LogRangeTooLargeError) return 'log-range-too-large';
  if (error instanceof RpcResponseError) return 'rpc-error';
  if (error instanceof RpcTransportError) return 'transient';
  if (error instanceof ResponseTooLargeError) return 'response-too-large';
  if (error instanceof RpcHttpError) return 'http-error';
  if (error instanceof RetriesExhaustedError) return kindOfOwnError(error.lastError);
  if (error instanceof RequestAbortedError) return 'aborted';
  if (error instanceof WrongChainError) return 'wrong-chain';
  return 'rpc-error';
}

function retryAfterOf(error: RpcError): number | null {
  return error instanceof RpcTransportError ? error.retryAfterMs : null;
}

function describeTransient(facts: FailureFacts): string {
  if (facts.timedOut) return 'timeout';
  if (facts.wrongId) return 'response ids do not match the request';
  if (facts.malformed) return 'malformed JSON response';
  if (facts.status !== null) return `HTTP ${facts.status}`;
  if (facts.rpcCode !== null) return `${facts.rpcMessage ?? 'error'} (code ${facts.rpcCode})`;
  if (facts.network) return 'connection failed';
  return facts.messages[facts.messages.length - 1] ?? 'unknown failure';
}

/** A WrongChainError our transport threw, through whatever wrapped it on the way out. */
function wrongChainIn(error: unknown): WrongChainError | null {
  for (let current = error, depth = 0; current instanceof Error && depth < 10; current = current.cause, depth++) {
    if (current instanceof WrongChainError) return current;
  }
  return null;
}

/**
 * Wraps whatever viem (or fetch) threw into one of our typed errors, keeping the original as
 * `cause`. Messages stay short: viem's own messages embed the whole request body.
 */
export function toRpcError(error: unknown, method: string | undefined): RpcError {
  if (error instanceof RpcError) return error;
  const { kind, retryAfterMs } = classifyFailure(error, method);
  const facts = collectFacts(error);
  const options = { method, cause: error };
  const code = facts.rpcCode ?? 0;
  const message = facts.rpcMessage ?? describeTransient(facts);
  switch (kind) {
    case 'method-unsupported':
      return new MethodNotSupportedError(code, message, facts.rpcData, options);
    case 'log-range-too-large':
      return new LogRangeTooLargeError(code, message, facts.rpcData, suggestedSpan(facts.messages.join(' ')), options);
    case 'response-too-large':
      return new ResponseTooLargeError(facts.tooLarge ?? 0, options);
    case 'rpc-error':
      return new RpcResponseError(code, message, facts.rpcData, options);
    case 'http-error':
      return new RpcHttpError(facts.status ?? 0, options);
    case 'aborted':
      return new RequestAbortedError(`${method ?? 'rpc'}: aborted`, options);
    case 'wrong-chain':
      return wrongChainIn(error)!;
    case 'transient':
      return new RpcTransportError(`${method ?? 'rpc'}: ${describeTransient(facts)}`, facts.status, retryAfterMs, {
        ...options,
        timedOut: facts.timedOut,
      });
  }
}

/**
 * Whether a failure is the provider refusing for rate (HTTP 429, or a JSON-RPC 429 / -32005 /
 * -32007 / "rate limit" wording that is not a log-range refusal), with its Retry-After; null
 * otherwise. The request budget (./request-budget.ts) slows down on these.
 */
export function rateLimitOf(error: unknown): { retryAfterMs: number | null } | null {
  const facts = collectFacts(error);
  const message = facts.rpcMessage ?? '';
  const rpcLimit =
    facts.rpcCode !== null &&
    ([429, -32005, -32007].includes(facts.rpcCode) || RATE_LIMIT_MESSAGE.test(message)) &&
    !LOG_RANGE_MESSAGE.test(message) &&
    !isBatchRefusalMessage(message);
  if (facts.status !== 429 && !rpcLimit) return null;
  return { retryAfterMs: parseRetryAfter(facts.headers?.get('retry-after')) };
}

/**
 * Whether a failed batch of `calls` calls (the error it threw, or the JSON-RPC error object one
 * of its answers carries) was refused for its size, and what the refusal says of the limit
 * (./batch-refusal.ts). A batch of one call is never "too large": its error is the call's.
 */
export function batchRefusalOf(error: unknown, calls: number): BatchRefusal | null {
  if (calls <= 1) return null;
  const facts = collectFacts(error);
  // (not every message of the chain: viem's own carry the request body, numbers and all)
  return batchRefusalIn(facts.rpcMessage ?? httpDetailsOf(error), facts.status, calls);
}

/** The body text viem keeps of a non-2xx answer without a JSON-RPC error in it. */
function httpDetailsOf(error: unknown): string {
  for (let current = error, depth = 0; current instanceof Error && depth < 10; current = current.cause, depth++) {
    const details = (current as { details?: unknown }).details;
    if (current.name === 'HttpRequestError' && typeof details === 'string') return details;
  }
  return '';
}

export function isMethodNotSupported(error: unknown): boolean {
  return classifyFailure(error).kind === 'method-unsupported';
}

// Provider wordings for a key that is missing, wrong or not allowed, sent as a JSON-RPC error
// over HTTP 200 (some providers do: HTTP 401/403 are refusals already). A quota or rate limit
// tied to a key is a wait, not a wrong key, and is not matched.
const AUTH_REFUSAL_MESSAGE =
  /unauthori[sz]ed|not authori[sz]ed|must be authenticated|authentication (failed|required|error)|invalid (api|project|access|auth)[ _-]?(key|id|token)|api[ _-]?key (is )?(invalid|missing|required|not (valid|found|allowed))|missing (api[ _-]?key|token)|forbidden|access denied|permission denied/i;

/** A JSON-RPC error that says the request's key or credentials are refused (never a rate limit). */
export function isAuthRefusal(error: unknown): boolean {
  const message = (error instanceof RpcResponseError ? error.rpcMessage : collectFacts(error).rpcMessage) ?? '';
  return AUTH_REFUSAL_MESSAGE.test(message) && !RATE_LIMIT_MESSAGE.test(message);
}
