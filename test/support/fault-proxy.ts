/**
 * HTTP proxy in front of a real node that misbehaves like hosted RPC providers do: hangs, rate
 * limits, 5xx, resets, broken or mismatched JSON, lagging nodes and eth_getLogs range limits.
 * Everything it does not break is forwarded to the node unchanged, so tests run against real
 * chain data, not a mock.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRng } from '../../src/devnet/random.js';

export const FAULT_KINDS = [
  /** No response: the request hangs until `hangMs` elapses (then the socket is destroyed) or the client gives up. */
  'timeout',
  /** 429 without Retry-After. */
  'http429',
  /** 429 with `Retry-After: retryAfterSeconds`. */
  'http429RetryAfter',
  'http500',
  'http502',
  'http503',
  /** The TCP connection is destroyed before anything is forwarded. */
  'reset',
  /** The node's real answer, cut in half (a complete HTTP response whose JSON does not parse). */
  'truncated',
  /** The node's real answer with single quotes for double quotes: JSON-looking, not JSON. */
  'malformed',
  /** The node's real answer with ids rotated between batch entries (a single answer gets a foreign id). */
  'wrongIds',
  /** `result: null` for eth_getBlockByNumber of a numbered block, like a node a few blocks behind. */
  'nullBlock',
  /** JSON-RPC error for eth_getLogs; also applied deterministically above `maxLogRange` blocks. */
  'rangeTooLarge',
  /** `[]` for a trace_block the node answered with traces: a load-balanced backend that has not reached the block. */
  'emptyTraces',
  /** `-32000 header not found` for a call about a numbered block (its block, receipts or traces), as geth behind the others says. */
  'headerNotFound',
] as const;

export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultProxyOptions {
  /** URL of the real node. */
  target: string;
  /** Probability that an HTTP request gets a random fault. Default 0. */
  rate?: number;
  seed?: number | string;
  /** Relative weights of the random faults; a kind missing here is never drawn. Default: all kinds, equal weights. */
  weights?: Partial<Record<FaultKind, number>>;
  /** Random faults only hit requests calling one of these methods. Default: any request. */
  methods?: string[];
  /** Default 1. */
  retryAfterSeconds?: number;
  /** How long a 'timeout' holds the request before destroying the socket. Default: until the client or close() ends it. */
  hangMs?: number;
  /** eth_getLogs spanning more blocks than this gets a range error. Default: no limit. */
  maxLogRange?: number;
  /** Default 0: a free port. */
  port?: number;
  /** Added to every HTTP request before it is answered: a provider this far away (round trip). Default 0. */
  latencyMs?: number;
  /** A provider's rate limit: see ProviderLimit. Default none. */
  limit?: ProviderLimit;
  /** A node's or provider's caps on batches: see BatchCaps. Default none. */
  batchCaps?: BatchCaps;
}

/**
 * Caps on batches as nodes and providers enforce them, each refusal in that software's own words:
 * - `calls`: a batch of more calls than this is refused whole, by `words`: geth
 *   (`[{"id": <the first call's>, "error": {-32600, "batch too large"}}]`), Erigon (`{"id": null,
 *   "error": {-32000, "batch limit N exceeded: M requests given"}}`), Besu (`{"id": null, "error":
 *   {-32005, "Number of requests exceeds max batch size"}}`, the rate-limit code), or `none`: a
 *   provider that takes no batch at all, not even of one call (`{"id": null, "error": {-32600,
 *   "batch requests are not supported"}}` to any JSON array; `calls` is then ignored);
 * - `responseBytes`: geth's --rpc.batch-response-max-size: once a batch's answers pass this many
 *   bytes, every later call of it gets `{-32003, "response too large"}`.
 */
export interface BatchCaps {
  calls?: number;
  words?: 'geth' | 'erigon' | 'besu' | 'none';
  responseBytes?: number;
}

/**
 * A hosted provider's rate limit: a request whose JSON-RPC calls (each call of a batch counts,
 * as providers count them) would take the calls admitted in the last second over
 * `callsPerSecond` is refused with 429 and, if given, `Retry-After: retryAfterSeconds`.
 */
export interface ProviderLimit {
  callsPerSecond: number;
  retryAfterSeconds?: number;
}

export type FaultStats = Record<FaultKind, number> & {
  /** HTTP requests received. */
  requests: number;
  /** HTTP requests (possibly with some batch entries removed) sent on to the node. */
  forwarded: number;
  /** most HTTP requests open at once (received, not yet answered) */
  maxInFlight: number;
  /** most JSON-RPC calls admitted within any one second (sliding) */
  maxCallsPerSecond: number;
  /** requests refused with 429 by the provider limit */
  limited: number;
  /** batches refused whole by `batchCaps` for their number of calls */
  batchRefused: number;
  /** calls refused by `batchCaps.responseBytes` */
  responseTooLarge: number;
  /** most calls in a batch the node answered */
  maxBatchForwarded: number;
  /** blocks answered with a parent hash that is not their parent's (setBrokenParent) */
  brokenParent: number;
  /**
   * requests that arrived while a Retry-After this proxy gave was still running, more than
   * `RETRY_AFTER_GRACE_MS` after it was given (earlier ones may have been on their way already)
   */
  ignoredRetryAfter: number;
};

/** A request sent before its client read a 429 can arrive after it: this long is not held against the client. */
export const RETRY_AFTER_GRACE_MS = 250;

export interface FaultProxy {
  url: string;
  port: number;
  /**
   * Injections so far. HTTP-level kinds count requests; 'nullBlock', 'rangeTooLarge',
   * 'emptyTraces' and 'headerNotFound' count the JSON-RPC calls they answered, since one batch can
   * hold several ('emptyTraces' only where the node's answer had traces).
   */
  stats(): FaultStats;
  resetStats(): void;
  setRate(rate: number): void;
  setMaxLogRange(blocks: number | undefined): void;
  setLatency(ms: number): void;
  setLimit(limit: ProviderLimit | undefined): void;
  /** Pure pass-through: no random faults, no range limit, queued injections kept for later. */
  pause(): void;
  /** Back to the rate and range limit in force before pause(). */
  resume(): void;
  /**
   * Applies `kind` to the next `times` eligible requests regardless of rate: for 'nullBlock' a
   * request with eth_getBlockByNumber(<number>), for 'rangeTooLarge' one with eth_getLogs, for
   * 'emptyTraces' one with trace_block, for 'headerNotFound' one about a numbered block, for
   * 'wrongIds' a batch, any request otherwise. Works while paused.
   */
  injectNext(kind: FaultKind, times?: number): void;
  /**
   * From now on (until called with undefined), eth_getBlockByNumber of block `number` answers the
   * node's block with another parent hash: a node whose chain contradicts itself, as a devnet
   * restored with another genesis, or backends on two branches behind one URL. Counted in
   * `brokenParent` (each block answered so).
   */
  setBrokenParent(number: bigint | undefined): void;
  close(): Promise<void>;
}

interface RpcCall {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: unknown[];
}

interface RpcAnswer {
  jsonrpc: '2.0';
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

const HTTP_ERRORS: Partial<Record<FaultKind, { status: number; body: string }>> = {
  http429: { status: 429, body: 'Too Many Requests' },
  http429RetryAfter: { status: 429, body: 'Too Many Requests' },
  http500: { status: 500, body: 'Internal Server Error' },
  http502: { status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' },
  http503: { status: 503, body: 'Service Unavailable' },
};

function isNumberedBlockCall(call: RpcCall): boolean {
  return call.method === 'eth_getBlockByNumber' && isNumbered(call.params?.[0]);
}

const isNumbered = (tag: unknown) => typeof tag === 'string' && /^0x[0-9a-f]+$/i.test(tag);

/** A call about one numbered block that a node behind the others cannot answer yet. */
function isAboutNumberedBlock(call: RpcCall): boolean {
  return ['eth_getBlockByNumber', 'eth_getBlockReceipts', 'trace_block', 'debug_traceBlockByNumber'].includes(call.method ?? '') && isNumbered(call.params?.[0]);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startFaultProxy(opts: FaultProxyOptions): Promise<FaultProxy> {
  const rng = createRng(opts.seed ?? 'fault-proxy');
  const weights = Object.entries(opts.weights ?? Object.fromEntries(FAULT_KINDS.map((k) => [k, 1]))).filter(
    ([, w]) => (w ?? 0) > 0,
  ) as [FaultKind, number][];
  let rate = opts.rate ?? 0;
  let maxLogRange = opts.maxLogRange;
  let paused: { rate: number; maxLogRange: number | undefined } | undefined;
  const queued: FaultKind[] = [];
  const emptyStats = (): FaultStats =>
    ({
      requests: 0, forwarded: 0, maxInFlight: 0, maxCallsPerSecond: 0, limited: 0, ignoredRetryAfter: 0, brokenParent: 0,
      batchRefused: 0, responseTooLarge: 0, maxBatchForwarded: 0,
      ...Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])),
    }) as FaultStats;
  let stats = emptyStats();
  let latencyMs = opts.latencyMs ?? 0;
  let limit = opts.limit;
  let inFlight = 0;
  /** calls admitted, by arrival, over the last second */
  const admitted: Array<{ at: number; calls: number }> = [];
  let retryAfter: { givenAt: number; until: number } | undefined;
  let brokenParent: string | undefined;
  /** the parent hash a broken block is answered with: no block's */
  const FOREIGN_PARENT = `0x${'ba'.repeat(32)}`;

  /** The provider limit's verdict on a request of `calls` calls: admitted (and counted), or refused. */
  const admit = (calls: number): boolean => {
    const now = Date.now();
    while (admitted.length > 0 && admitted[0]!.at <= now - 1_000) admitted.shift();
    const inWindow = admitted.reduce((sum, a) => sum + a.calls, 0);
    if (limit && inWindow + calls > limit.callsPerSecond) {
      stats.limited++;
      // the first refusal's Retry-After binds: requests refused inside it do not extend it
      if (limit.retryAfterSeconds !== undefined && (retryAfter === undefined || now >= retryAfter.until)) {
        retryAfter = { givenAt: now, until: now + limit.retryAfterSeconds * 1_000 };
      }
      return false;
    }
    admitted.push({ at: now, calls });
    stats.maxCallsPerSecond = Math.max(stats.maxCallsPerSecond, inWindow + calls);
    return true;
  };

  const eligible = (kind: FaultKind, calls: RpcCall[] | undefined): boolean => {
    // Faults that rewrite JSON-RPC entries need a parsed JSON-RPC request.
    if (!calls) return !['wrongIds', 'nullBlock', 'rangeTooLarge', 'emptyTraces', 'headerNotFound'].includes(kind);
    if (kind === 'nullBlock') return calls.some(isNumberedBlockCall);
    if (kind === 'emptyTraces') return calls.some((c) => c.method === 'trace_block');
    if (kind === 'headerNotFound') return calls.some(isAboutNumberedBlock);
    if (kind === 'rangeTooLarge') return calls.some((c) => c.method === 'eth_getLogs');
    // A single answer with a foreign id is a different fault (a mismatched id) from a shuffled batch.
    if (kind === 'wrongIds') return calls.length > 1;
    return true;
  };

  const chooseFault = (calls: RpcCall[] | undefined): FaultKind | undefined => {
    const q = queued.findIndex((k) => eligible(k, calls));
    if (q >= 0) return queued.splice(q, 1)[0];
    if (rate <= 0 || rng.next() >= rate) return undefined;
    if (opts.methods && !calls?.some((c) => c.method && opts.methods!.includes(c.method))) return undefined;
    const candidates = weights.filter(([k]) => eligible(k, calls));
    let x = rng.next() * candidates.reduce((sum, [, w]) => sum + w, 0);
    for (const [kind, w] of candidates) {
      x -= w;
      if (x < 0) return kind;
    }
    return undefined;
  };

  const forward = async (req: IncomingMessage, body: Buffer | string): Promise<{ status: number; contentType: string; text: string }> => {
    stats.forwarded++;
    const init: RequestInit = { method: req.method ?? 'POST', headers: { 'content-type': req.headers['content-type'] ?? 'application/json' } };
    if (req.method !== 'GET' && req.method !== 'HEAD') init.body = body;
    const res = await fetch(new URL(req.url ?? '/', opts.target), init);
    return { status: res.status, contentType: res.headers.get('content-type') ?? 'application/json', text: await res.text() };
  };

  let headCache: { at: number; number: bigint } | undefined;
  const blockTagNumber = async (tag: unknown): Promise<bigint> => {
    if (typeof tag === 'string' && /^0x[0-9a-f]+$/i.test(tag)) return BigInt(tag);
    if (tag === 'earliest') return 0n;
    // 'latest', 'safe', 'finalized', 'pending' or absent: the node's head, cached briefly so a
    // burst of getLogs does not double the load on the node.
    if (!headCache || Date.now() - headCache.at > 200) {
      const res = await fetch(opts.target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
      });
      headCache = { at: Date.now(), number: BigInt(((await res.json()) as { result: string }).result) };
    }
    return headCache.number;
  };

  const exceedsRange = async (call: RpcCall): Promise<boolean> => {
    if (maxLogRange === undefined || call.method !== 'eth_getLogs') return false;
    const filter = (call.params?.[0] ?? {}) as { fromBlock?: string; toBlock?: string; blockHash?: string };
    if (filter.blockHash) return false;
    const span = (await blockTagNumber(filter.toBlock)) - (await blockTagNumber(filter.fromBlock)) + 1n;
    return span > BigInt(maxLogRange);
  };

  const rangeError = (call: RpcCall): RpcAnswer => ({
    jsonrpc: '2.0',
    id: call.id ?? null,
    error: { code: -32005, message: `query exceeds max block range ${maxLogRange ?? 0}: eth_getLogs is limited to ${maxLogRange ?? 0} blocks` },
  });

  /**
   * Answers some calls locally (range errors, lagging-node nulls) and forwards the rest as one
   * request, preserving the batch order in the reply.
   */
  const answerRpc = async (req: IncomingMessage, calls: RpcCall[], isBatch: boolean, fault: FaultKind | undefined) => {
    const local = new Map<number, RpcAnswer>();
    const notReached = fault === 'headerNotFound' ? calls.findIndex(isAboutNumberedBlock) : -1;
    for (const [i, call] of calls.entries()) {
      if (i === notReached) {
        local.set(i, { jsonrpc: '2.0', id: call.id ?? null, error: { code: -32000, message: 'header not found' } });
        stats.headerNotFound++;
      } else if (fault === 'nullBlock' && isNumberedBlockCall(call)) {
        local.set(i, { jsonrpc: '2.0', id: call.id ?? null, result: null });
        stats.nullBlock++;
      } else if (call.method === 'eth_getLogs' && (fault === 'rangeTooLarge' || (await exceedsRange(call)))) {
        local.set(i, rangeError(call));
        stats.rangeTooLarge++;
      }
    }
    const breaks = (call: RpcCall) => brokenParent !== undefined && isNumberedBlockCall(call) && BigInt(call.params![0] as string) === BigInt(brokenParent);
    const rewrite = calls.some(breaks) || fault === 'emptyTraces';
    const remote = calls.filter((_, i) => !local.has(i));
    let upstream: { status: number; contentType: string; text: string } | undefined;
    let remoteAnswers: RpcAnswer[] = [];
    if (remote.length > 0) {
      upstream = await forward(req, JSON.stringify(isBatch ? remote : remote[0]));
      if (local.size === 0 && !rewrite) return upstream;
      const parsed = JSON.parse(upstream.text) as RpcAnswer | RpcAnswer[];
      remoteAnswers = Array.isArray(parsed) ? parsed : [parsed];
    }
    // JSON-RPC lets a node answer a batch in any order: match by id, fall back to position.
    const byId = new Map(remoteAnswers.map((r) => [JSON.stringify(r.id), r]));
    let next = 0;
    const answers = calls.map((call, i) => local.get(i) ?? byId.get(JSON.stringify(call.id)) ?? remoteAnswers[next++]!);
    for (const [i, call] of calls.entries()) {
      const block = answers[i]!.result as { parentHash?: string } | null | undefined;
      if (breaks(call) && block) {
        answers[i] = { ...answers[i]!, result: { ...block, parentHash: FOREIGN_PARENT } };
        stats.brokenParent++;
      }
      // counted only where it changed the answer: `[]` is a block without transactions' true one
      const traces = answers[i]!.result;
      if (fault === 'emptyTraces' && call.method === 'trace_block' && Array.isArray(traces) && traces.length > 0) {
        answers[i] = { ...answers[i]!, result: [] };
        stats.emptyTraces++;
      }
    }
    return { status: 200, contentType: 'application/json', text: JSON.stringify(isBatch ? answers : answers[0]) };
  };

  const caps = opts.batchCaps;
  /** A whole batch refused for its number of calls, as `caps.words` says it; null: taken. */
  const refuseBatch = (calls: RpcCall[]): unknown => {
    if (caps?.words === 'none') return { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch requests are not supported' } };
    if (caps?.calls === undefined || calls.length <= caps.calls) return null;
    switch (caps.words ?? 'geth') {
      case 'erigon':
        return { jsonrpc: '2.0', id: null, error: { code: -32000, message: `batch limit ${caps.calls} exceeded: ${calls.length} requests given` } };
      case 'besu':
        return { jsonrpc: '2.0', id: null, error: { code: -32005, message: 'Number of requests exceeds max batch size' } };
      default:
        return [{ jsonrpc: '2.0', id: calls[0]!.id ?? null, error: { code: -32600, message: 'batch too large' } }];
    }
  };
  /** geth's batch answer cap: the answers after the one that takes the batch past `responseBytes` are refused. */
  const capResponse = (text: string): string => {
    if (caps?.responseBytes === undefined) return text;
    const answers = JSON.parse(text) as RpcAnswer[];
    let bytes = 0;
    return JSON.stringify(
      answers.map((answer) => {
        if (bytes > caps.responseBytes!) {
          stats.responseTooLarge++;
          return { jsonrpc: '2.0', id: answer.id, error: { code: -32003, message: 'response too large' } };
        }
        bytes += JSON.stringify(answer).length;
        return answer;
      }),
    );
  };

  const corrupt = (kind: FaultKind, text: string): string => {
    switch (kind) {
      case 'truncated':
        return text.slice(0, Math.max(1, Math.floor(text.length / 2)));
      case 'malformed':
        return text.replace(/"/g, "'");
      case 'wrongIds': {
        let parsed: RpcAnswer | RpcAnswer[];
        try {
          parsed = JSON.parse(text) as RpcAnswer | RpcAnswer[];
        } catch {
          return text;
        }
        if (!Array.isArray(parsed)) return JSON.stringify({ ...parsed, id: typeof parsed.id === 'number' ? parsed.id + 1_000_000 : 'wrong-id' });
        const ids = parsed.map((a) => a.id);
        return JSON.stringify(parsed.map((a, i) => ({ ...a, id: ids[(i + 1) % ids.length] })));
      }
      default:
        return text;
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    stats.requests++;
    const arrived = Date.now();
    if (retryAfter && arrived > retryAfter.givenAt + RETRY_AFTER_GRACE_MS && arrived < retryAfter.until) stats.ignoredRetryAfter++;
    inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    const body = await readBody(req);
    let parsed: RpcCall | RpcCall[] | undefined;
    try {
      parsed = JSON.parse(body.toString('utf8')) as RpcCall | RpcCall[];
    } catch {
      parsed = undefined;
    }
    const isBatch = Array.isArray(parsed);
    const calls = parsed === undefined ? undefined : Array.isArray(parsed) ? parsed : [parsed];
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    if (!admit(calls?.length ?? 1)) {
      const headers: Record<string, string> = { 'content-type': 'text/plain' };
      if (limit?.retryAfterSeconds !== undefined) headers['retry-after'] = String(limit.retryAfterSeconds);
      res.writeHead(429, headers).end('Too Many Requests: rate limit exceeded');
      return;
    }
    const refused = isBatch ? refuseBatch(calls!) : null;
    if (refused !== null) {
      stats.batchRefused++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(refused));
      return;
    }
    if (isBatch) stats.maxBatchForwarded = Math.max(stats.maxBatchForwarded, calls!.length);
    const fault = chooseFault(calls);

    if (fault === 'timeout') {
      stats.timeout++;
      if (opts.hangMs !== undefined) setTimeout(() => req.socket.destroy(), opts.hangMs).unref();
      return;
    }
    if (fault === 'reset') {
      stats.reset++;
      req.socket.destroy();
      return;
    }
    const httpError = fault && HTTP_ERRORS[fault];
    if (fault && httpError) {
      stats[fault]++;
      const headers: Record<string, string> = { 'content-type': 'text/plain' };
      if (fault === 'http429RetryAfter') headers['retry-after'] = String(opts.retryAfterSeconds ?? 1);
      res.writeHead(httpError.status, headers).end(httpError.body);
      return;
    }

    const answer = calls ? await answerRpc(req, calls, isBatch, fault) : await forward(req, body);
    let text = isBatch && answer.status === 200 ? capResponse(answer.text) : answer.text;
    if (fault === 'truncated' || fault === 'malformed' || fault === 'wrongIds') {
      stats[fault]++;
      text = corrupt(fault, text);
    }
    res.writeHead(answer.status, { 'content-type': answer.contentType }).end(text);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      // The node itself failed (e.g. stopped): report it as a gateway error, as a real proxy would.
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(`fault proxy: upstream error: ${String(err)}`);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    stats: () => ({ ...stats }),
    resetStats: () => {
      stats = emptyStats();
    },
    setRate: (r) => {
      if (paused) paused.rate = r;
      else rate = r;
    },
    setMaxLogRange: (blocks) => {
      if (paused) paused.maxLogRange = blocks;
      else maxLogRange = blocks;
    },
    setLatency: (ms) => {
      latencyMs = ms;
    },
    setLimit: (l) => {
      limit = l;
      retryAfter = undefined;
    },
    pause: () => {
      if (paused) return;
      paused = { rate, maxLogRange };
      rate = 0;
      maxLogRange = undefined;
    },
    resume: () => {
      if (!paused) return;
      ({ rate, maxLogRange } = paused);
      paused = undefined;
    },
    injectNext: (kind, times = 1) => {
      for (let i = 0; i < times; i++) queued.push(kind);
    },
    setBrokenParent: (number) => {
      brokenParent = number === undefined ? undefined : `0x${number.toString(16)}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        // Hanging 'timeout' requests would otherwise keep close() waiting forever.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
