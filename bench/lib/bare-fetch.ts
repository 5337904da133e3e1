import { createRpcClient } from '../../src/rpc/client.js';
import { fetchBlocksWithReceipts } from '../../src/evm/fetch-blocks.js';
import type { RequestBudget } from '../../src/rpc/request-budget.js';

/** bench:index's fetch ceiling: what the node delivers to a loop that only fetches and parses. */
export interface FetchRun {
  config: { blocksPerRequest: number; concurrency: number };
  events: number;
  ms: number;
}
export const perS = (n: number, ms: number) => Math.round((n / ms) * 1000);
export const eventsPerS = (r: { events: number; ms: number }) => perS(r.events, r.ms);

/**
 * What the node can deliver: the same data the indexer needs (each block with its
 * transactions, all its receipts with their logs), in JSON-RPC batches of `blocksPerRequest`
 * blocks, `concurrency` batches in flight, parsed and nothing else.
 */
export async function bareFetch(
  url: string,
  head: bigint,
  { config }: Pick<FetchRun, 'config'>,
  remote: { budget: RequestBudget; traces: boolean } | null = null,
): Promise<FetchRun> {
  const last = Number(head);
  let next = 0;
  let events = 0;
  const started = performance.now();
  const worker = async () => {
    while (next <= last) {
      const from = next;
      const to = Math.min(last, from + config.blocksPerRequest - 1);
      next = to + 1;
      const calls = [];
      for (let n = from; n <= to; n++) {
        const hex = `0x${n.toString(16)}`;
        calls.push({ jsonrpc: '2.0', id: 2 * n, method: 'eth_getBlockByNumber', params: [hex, true] });
        calls.push({ jsonrpc: '2.0', id: 2 * n + 1, method: 'eth_getBlockReceipts', params: [hex] });
        if (remote?.traces) calls.push({ jsonrpc: '2.0', id: -1 - n, method: 'trace_block', params: [hex] });
      }
      const release = remote ? await remote.budget.acquire(calls.length) : () => undefined;
      let answers: Array<{ id: number; result: unknown; error?: unknown }>;
      try {
        answers = (await (await postOnce(url, JSON.stringify(calls))).json()) as typeof answers;
      } finally {
        release();
      }
      for (const a of answers) {
        if (a.error || a.result === null) throw new Error(`bare fetch: ${JSON.stringify(a.error ?? 'null result')}`);
        if (a.id >= 0 && a.id % 2 === 1) for (const r of a.result as Array<{ logs: unknown[] }>) events += r.logs.length;
      }
    }
  };
  await Promise.all(Array.from({ length: config.concurrency }, worker));
  return { config, events, ms: performance.now() - started };
}

/**
 * One POST, sent again if the connection was closed under it: a keep-alive connection idle
 * while the loop waited for its budget can be closed by the server just as it is reused.
 */
async function postOnce(url: string, body: string, tries = 3): Promise<Response> {
  try {
    return await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  } catch (error) {
    if (tries <= 1) throw error;
    return postOnce(url, body, tries - 1);
  }
}

/** A few batch shapes, best first: the ceiling is the best the node gives, not one guess's. */
export async function tuneBareFetch(url: string, head: bigint, log: (msg: string) => void): Promise<FetchRun[]> {
  const grid: FetchRun[] = [];
  for (const blocksPerRequest of [1, 5, 20]) {
    for (const concurrency of [1, 2, 4]) grid.push(await bareFetch(url, head, { config: { blocksPerRequest, concurrency } }));
  }
  grid.sort((a, b) => eventsPerS(b) - eventsPerS(a));
  log(`bare fetch grid: ${grid.map((g) => `${g.config.blocksPerRequest}×${g.config.concurrency}: ${eventsPerS(g)}`).join(', ')} events/s`);
  return grid;
}

export async function nodeHasTraces(url: string): Promise<boolean> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'trace_block', params: ['0x1'] }) });
  return !((await res.json()) as { error?: unknown }).error;
}

/** The indexer's own fetch path (src/rpc + src/evm: viem batching, retries, receipts checks), no database. */
export async function chainLayerFetch(url: string, head: bigint, chainId: number): Promise<{ events: number; ms: number }> {
  const rpc = createRpcClient({ chainId, urls: [url] });
  const started = performance.now();
  let events = 0;
  const RANGE = 20n;
  let next = 0n;
  // two ranges in flight at once
  const worker = async () => {
    while (next <= head) {
      const from = next;
      const to = from + RANGE - 1n < head ? from + RANGE - 1n : head;
      next = to + 1n;
      for (const b of await fetchBlocksWithReceipts(rpc, from, to)) for (const r of b.receipts) events += r.logs.length;
    }
  };
  await Promise.all([worker(), worker()]);
  return { events, ms: performance.now() - started };
}
