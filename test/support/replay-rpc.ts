/**
 * A real HTTP JSON-RPC server (node:http) that answers from the recorded chain data in
 * ../shared/fixtures/real/, so tests drive the real viem-based client over real sockets.
 *
 * It knows what the fixtures hold: blocks (by number or hash; full or hash-only), receipts (per
 * block and per transaction), trace_block output, logs (the eth_getLogs recording plus the logs
 * inside every receipt), and any other recorded request verbatim. Blocks it does not know are
 * `null`, like a node that has not seen them yet.
 *
 * Faults can be injected to exercise retry paths: HTTP statuses (with Retry-After), truncated
 * bodies, reset connections, delays (timeouts), mixed-up ids, null results and JSON-RPC errors.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const fixtureDir = path.resolve(repoRoot, '../shared/fixtures/real');

export const FIXTURE_SETS = [
  'ethereum-mainnet',
  'ethereum-mainnet-rewards',
  'ethereum-etl-block-508110',
  'arbitrum-sepolia',
] as const;
export type FixtureSet = (typeof FIXTURE_SETS)[number];

type Json = unknown;
type JsonObject = Record<string, unknown>;

interface RecordedExchange {
  method: string;
  params: unknown[];
  response: JsonObject;
}

const fileCache = new Map<string, Json>();

/** Parsed JSON of a fixture file, path relative to the fixture directory. */
export function readFixture(relativePath: string): Json {
  let parsed = fileCache.get(relativePath);
  if (parsed === undefined) {
    parsed = JSON.parse(readFileSync(path.join(fixtureDir, relativePath), 'utf8')) as Json;
    fileCache.set(relativePath, parsed);
  }
  return parsed;
}

/** The recorded request/response pairs of a fixture file, whatever its format (see README). */
export function recordedExchanges(relativePath: string): RecordedExchange[] {
  const data = readFixture(relativePath);
  if (Array.isArray(data)) {
    // erigon rpc-tests: [{request, response}], where a batch has arrays on both sides
    return data.flatMap((entry: JsonObject) => {
      const request = entry['request'];
      const response = entry['response'];
      const requests = (Array.isArray(request) ? request : [request]) as JsonObject[];
      const responses = (Array.isArray(response) ? response : [response]) as JsonObject[];
      return requests.map((req, i) => ({
        method: String(req['method']),
        params: (req['params'] as unknown[] | undefined) ?? [],
        // Pair by position when it agrees (the recorded batch reuses one id), else by id.
        response:
          (responses[i]?.['id'] === req['id'] ? responses[i] : responses.find((r) => r['id'] === req['id'])) ?? responses[i] ?? {},
      }));
    });
  }
  // ethereum-etl: a bare response; the request is encoded in the file name
  // ("web3_response.<method>_<param>_<param>.json").
  const base = path.basename(relativePath, '.json').replace(/^web3_response\./, '');
  const match = /^((?:eth|trace|debug|erigon|ots)_[A-Za-z]+)_(.*)$/.exec(base);
  if (!match?.[1]) throw new Error(`cannot tell the request of ${relativePath}`);
  const params = (match[2] ?? '').split('_').map((p) => (p === 'true' ? true : p === 'false' ? false : p));
  return [{ method: match[1], params, response: data as JsonObject }];
}

/** The node's result in a fixture file (`index` picks an entry of a batch). */
export function fixtureResult<T>(relativePath: string, index = 0): T {
  const exchange = recordedExchanges(relativePath)[index];
  if (!exchange) throw new Error(`${relativePath} has no entry ${index}`);
  return exchange.response['result'] as T;
}

export type Fault =
  /** answer the HTTP exchange with this status (and optional Retry-After seconds or date) */
  | { kind: 'status'; status: number; retryAfter?: string; body?: string }
  /** send only the first half of the real answer */
  | { kind: 'truncate' }
  /** destroy the socket without answering */
  | { kind: 'reset' }
  /** answer correctly, but only after `ms` */
  | { kind: 'delay'; ms: number }
  /** answer with ids the client did not send */
  | { kind: 'wrong-id' }
  /** a matching call gets `result: null` (a block the node has not seen yet) */
  | { kind: 'null-result' }
  /** a matching call gets this JSON-RPC error */
  | { kind: 'rpc-error'; code: number; message: string };

const CALL_LEVEL_FAULTS = new Set<Fault['kind']>(['null-result', 'rpc-error']);

export interface FaultOptions {
  /** only exchanges (or calls) of this JSON-RPC method; any method otherwise */
  method?: string;
  /** how many times the fault fires; default 1 */
  times?: number;
}

/** Throw from a custom handler to answer with a JSON-RPC error. */
export class ReplayRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export type ReplayHandler = (params: unknown[], server: ReplayServer) => unknown;

export interface ReplayServerOptions {
  chainId?: number;
  /** fixture subdirectories to serve; all by default */
  sets?: readonly FixtureSet[];
  /** eth_blockNumber; the highest known block by default */
  head?: bigint;
  /** answered with -32601 "method not found" */
  unsupportedMethods?: readonly string[];
  /** custom methods, or overrides of the built-in ones */
  handlers?: Record<string, ReplayHandler>;
  /** eth_getLogs over more blocks than this is refused */
  maxLogBlockRange?: bigint;
  /** eth_getLogs returning more logs than this is refused */
  maxLogResults?: number;
  /** the refusal, e.g. a provider's wording; `{from}`/`{to}` are replaced by a suggested range */
  logRangeError?: { code: number; message: string };
}

export interface ReplayCall {
  methods: string[];
  batch: boolean;
  fault: Fault['kind'] | null;
}

export interface ReplayServer {
  readonly url: string;
  /** every HTTP exchange, in arrival order */
  readonly calls: ReplayCall[];
  /** how many JSON-RPC calls of `method` arrived (batched or not) */
  callCount(method: string): number;
  injectFault(fault: Fault, options?: FaultOptions): void;
  close(): Promise<void>;
}

interface FaultRule {
  fault: Fault;
  method: string | undefined;
  remaining: number;
}

interface ChainData {
  blocksByNumber: Map<bigint, JsonObject>;
  blocksByHash: Map<string, JsonObject>;
  receiptsByBlockHash: Map<string, JsonObject[]>;
  receiptsByTx: Map<string, JsonObject>;
  tracesByBlock: Map<bigint, JsonObject[]>;
  logs: JsonObject[];
  verbatim: Map<string, JsonObject>;
}

function normalise(value: unknown): unknown {
  if (typeof value === 'string') return value.toLowerCase();
  if (Array.isArray(value)) return value.map(normalise);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, normalise(v)]),
    );
  }
  return value;
}

function requestKey(method: string, params: unknown[]): string {
  return `${method}:${JSON.stringify(normalise(params))}`;
}

function loadChainData(sets: readonly FixtureSet[]): ChainData {
  const data: ChainData = {
    blocksByNumber: new Map(),
    blocksByHash: new Map(),
    receiptsByBlockHash: new Map(),
    receiptsByTx: new Map(),
    tracesByBlock: new Map(),
    logs: [],
    verbatim: new Map(),
  };
  const logKeys = new Set<string>();
  const addLogs = (logs: JsonObject[]): void => {
    for (const log of logs) {
      const key = `${String(log['blockHash']).toLowerCase()}:${String(log['logIndex'])}`;
      if (!logKeys.has(key)) {
        logKeys.add(key);
        data.logs.push(log);
      }
    }
  };
  const addBlock = (block: JsonObject): void => {
    const hash = String(block['hash']).toLowerCase();
    const known = data.blocksByHash.get(hash);
    // Prefer the recording with full transaction objects.
    if (known && typeof (known['transactions'] as unknown[])[0] === 'object') return;
    data.blocksByHash.set(hash, block);
    data.blocksByNumber.set(BigInt(String(block['number'])), block);
  };
  for (const set of sets) {
    for (const file of readdirSync(path.join(fixtureDir, set)).filter((f) => f.endsWith('.json')).sort()) {
      for (const { method, params, response } of recordedExchanges(`${set}/${file}`)) {
        data.verbatim.set(requestKey(method, params), response);
        const result = response['result'];
        if (result === null || result === undefined) continue;
        switch (method) {
          case 'eth_getBlockByNumber':
          case 'eth_getBlockByHash':
            addBlock(result as JsonObject);
            break;
          case 'eth_getBlockReceipts':
          case 'erigon_getBlockReceiptsByBlockHash': {
            const receipts = result as JsonObject[];
            const first = receipts[0];
            if (first) data.receiptsByBlockHash.set(String(first['blockHash']).toLowerCase(), receipts);
            for (const receipt of receipts) {
              data.receiptsByTx.set(String(receipt['transactionHash']).toLowerCase(), receipt);
              addLogs(receipt['logs'] as JsonObject[]);
            }
            break;
          }
          case 'eth_getTransactionReceipt':
            data.receiptsByTx.set(String((result as JsonObject)['transactionHash']).toLowerCase(), result as JsonObject);
            addLogs((result as JsonObject)['logs'] as JsonObject[]);
            break;
          case 'trace_block':
            data.tracesByBlock.set(BigInt(String(params[0])), result as JsonObject[]);
            break;
          case 'eth_getLogs':
            addLogs(result as JsonObject[]);
            break;
          default:
            break;
        }
      }
    }
  }
  return data;
}

function hasFullTransactions(block: JsonObject): boolean {
  const txs = block['transactions'] as unknown[];
  return txs.length === 0 || typeof txs[0] === 'object';
}

function topicMatches(filter: unknown, topic: unknown): boolean {
  if (filter === null || filter === undefined) return true;
  const wanted = (Array.isArray(filter) ? filter : [filter]).map((t) => String(t).toLowerCase());
  return typeof topic === 'string' && wanted.includes(topic.toLowerCase());
}

export async function startReplayServer(options: ReplayServerOptions = {}): Promise<ReplayServer> {
  const data = loadChainData(options.sets ?? FIXTURE_SETS);
  const chainId = options.chainId ?? 1;
  const head = options.head ?? [...data.blocksByNumber.keys()].reduce((a, b) => (b > a ? b : a), 0n);
  const unsupported = new Set(options.unsupportedMethods ?? []);
  const rules: FaultRule[] = [];
  const calls: ReplayCall[] = [];
  const callCounts = new Map<string, number>();

  const resolveBlock = (ref: unknown): JsonObject | undefined => {
    const text = String(ref).toLowerCase();
    if (text.length === 66) return data.blocksByHash.get(text);
    if (text === 'latest' || text === 'safe' || text === 'finalized' || text === 'pending') return data.blocksByNumber.get(head);
    if (text === 'earliest') return data.blocksByNumber.get(0n);
    return data.blocksByNumber.get(BigInt(text));
  };

  const builtIn: Record<string, ReplayHandler> = {
    eth_chainId: () => `0x${chainId.toString(16)}`,
    eth_blockNumber: () => `0x${head.toString(16)}`,
    eth_getBlockByNumber: ([ref, full]) => serveBlock(resolveBlock(ref), full === true),
    eth_getBlockByHash: ([ref, full]) => serveBlock(resolveBlock(ref), full === true),
    eth_getBlockReceipts: ([ref]) => {
      const block = resolveBlock(ref);
      if (!block) return null;
      const receipts = data.receiptsByBlockHash.get(String(block['hash']).toLowerCase());
      if (receipts) return receipts;
      if ((block['transactions'] as unknown[]).length === 0) return [];
      throw new ReplayRpcError(-32000, 'replay: no receipts recorded for this block');
    },
    eth_getTransactionReceipt: ([hash]) => data.receiptsByTx.get(String(hash).toLowerCase()) ?? null,
    trace_block: ([ref]) => {
      const block = resolveBlock(ref);
      const number = block ? BigInt(String(block['number'])) : BigInt(String(ref));
      const traces = data.tracesByBlock.get(number);
      if (!traces) throw new ReplayRpcError(-32000, 'replay: no trace recorded for this block');
      return traces;
    },
    eth_getLogs: ([filter]) => serveLogs(filter as JsonObject),
  };

  function serveBlock(block: JsonObject | undefined, full: boolean): unknown {
    if (!block) return null;
    if (full) {
      if (!hasFullTransactions(block)) throw new ReplayRpcError(-32000, 'replay: only transaction hashes recorded for this block');
      return block;
    }
    const txs = block['transactions'] as (JsonObject | string)[];
    return { ...block, transactions: txs.map((tx) => (typeof tx === 'string' ? tx : tx['hash'])) };
  }

  function serveLogs(filter: JsonObject): unknown {
    const from = BigInt(String(filter['fromBlock'] ?? '0x0'));
    const to = filter['toBlock'] === undefined || filter['toBlock'] === 'latest' ? head : BigInt(String(filter['toBlock']));
    const refusal = options.logRangeError ?? {
      code: -32005,
      message: 'query returned more than 10000 results. Try with this block range [{from}, {to}].',
    };
    const refuse = (suggestedTo: bigint): never => {
      throw new ReplayRpcError(
        refusal.code,
        refusal.message.replace('{from}', `0x${from.toString(16)}`).replace('{to}', `0x${suggestedTo.toString(16)}`),
      );
    };
    if (options.maxLogBlockRange !== undefined && to - from + 1n > options.maxLogBlockRange) {
      refuse(from + options.maxLogBlockRange - 1n);
    }
    const addresses = filter['address'] === undefined || filter['address'] === null
      ? null
      : (Array.isArray(filter['address']) ? filter['address'] : [filter['address']]).map((a) => String(a).toLowerCase());
    const topics = (filter['topics'] as unknown[] | undefined) ?? [];
    const logs = data.logs.filter((log) => {
      const number = BigInt(String(log['blockNumber']));
      if (number < from || number > to) return false;
      if (addresses && addresses.length > 0 && !addresses.includes(String(log['address']).toLowerCase())) return false;
      const logTopics = log['topics'] as unknown[];
      return topics.every((wanted, i) => topicMatches(wanted, logTopics[i]));
    });
    if (options.maxLogResults !== undefined && logs.length > options.maxLogResults) refuse(from + (to - from) / 2n);
    return logs.sort(
      (a, b) =>
        Number(BigInt(String(a['blockNumber'])) - BigInt(String(b['blockNumber']))) ||
        Number(BigInt(String(a['logIndex'])) - BigInt(String(b['logIndex']))),
    );
  }

  function takeFault(methods: string[], level: 'exchange' | 'call'): Fault | null {
    for (const rule of rules) {
      if (rule.remaining <= 0) continue;
      if (CALL_LEVEL_FAULTS.has(rule.fault.kind) !== (level === 'call')) continue;
      if (rule.method !== undefined && !methods.includes(rule.method)) continue;
      rule.remaining -= 1;
      return rule.fault;
    }
    return null;
  }

  function answer(call: JsonObject): JsonObject {
    const id = call['id'] ?? null;
    const method = String(call['method']);
    const params = (call['params'] as unknown[] | undefined) ?? [];
    callCounts.set(method, (callCounts.get(method) ?? 0) + 1);
    const fault = takeFault([method], 'call');
    if (fault?.kind === 'null-result') return { jsonrpc: '2.0', id, result: null };
    if (fault?.kind === 'rpc-error') return { jsonrpc: '2.0', id, error: { code: fault.code, message: fault.message } };
    if (unsupported.has(method)) {
      return { jsonrpc: '2.0', id, error: { code: -32601, message: `the method ${method} does not exist/is not available` } };
    }
    try {
      const handler = options.handlers?.[method] ?? builtIn[method];
      if (handler) return { jsonrpc: '2.0', id, result: handler(params, server) ?? null };
      const recorded = data.verbatim.get(requestKey(method, params));
      if (recorded) return { ...recorded, id };
      return { jsonrpc: '2.0', id, error: { code: -32601, message: `the method ${method} does not exist/is not available` } };
    } catch (error) {
      if (error instanceof ReplayRpcError) return { jsonrpc: '2.0', id, error: { code: error.code, message: error.message } };
      return { jsonrpc: '2.0', id, error: { code: -32603, message: String(error) } };
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }));
      return;
    }
    const batch = Array.isArray(body);
    const requests = (batch ? body : [body]) as JsonObject[];
    const methods = requests.map((r) => String(r['method']));
    const fault = takeFault(methods, 'exchange');
    calls.push({ methods, batch, fault: fault?.kind ?? null });

    if (fault?.kind === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'status') {
      const headers: Record<string, string> = { 'content-type': 'text/html' };
      if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
      res.writeHead(fault.status, headers);
      res.end(fault.body ?? `<html><body>${fault.status}</body></html>`);
      return;
    }
    if (fault?.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms));

    const answers = requests.map(answer);
    if (fault?.kind === 'wrong-id') {
      for (const a of answers) a['id'] = typeof a['id'] === 'number' ? a['id'] + 1000 : `${String(a['id'])}-other`;
    }
    const text = JSON.stringify(batch ? answers : answers[0]);
    if (res.destroyed) return;
    res.writeHead(200, { 'content-type': 'application/json' });
    if (fault?.kind === 'truncate') {
      res.end(text.slice(0, Math.floor(text.length / 2)));
      return;
    }
    res.end(text);
  }

  const httpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;

  const server: ReplayServer = {
    url: `http://127.0.0.1:${port}/`,
    calls,
    callCount: (method) => callCounts.get(method) ?? 0,
    injectFault(fault, faultOptions = {}) {
      rules.push({ fault, method: faultOptions.method, remaining: faultOptions.times ?? 1 });
    },
    close() {
      return new Promise((resolve, reject) => {
        httpServer.closeAllConnections();
        httpServer.close((error) => (error ? reject(error) : resolve()));
      });
    },
  };
  return server;
}
