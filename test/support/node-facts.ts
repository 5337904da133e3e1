/** The node, read directly (never through the code under test): batched JSON-RPC and its blocks' facts. */
import { numberToHex } from 'viem';
import type { Hex } from '../../src/db/rows.js';

interface RpcAnswer {
  id: number;
  result?: unknown;
  error?: { message: string };
}

/** JSON-RPC batches straight to the node, in chunks anvil's request size limit accepts. */
export async function rpcBatch<T>(url: string, calls: ReadonlyArray<{ method: string; params: unknown[] }>, chunk = 400): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < calls.length; i += chunk) {
    const body = calls.slice(i, i + chunk).map((c, k) => ({ jsonrpc: '2.0', id: k, ...c }));
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const answers = ((await res.json()) as RpcAnswer[]).sort((a, b) => a.id - b.id);
    for (const a of answers) {
      if (a.error) throw new Error(`node: ${calls[i + a.id]!.method}: ${a.error.message}`);
      out.push(a.result as T);
    }
  }
  return out;
}

export const ethCall = (to: Hex, data: Hex, block: bigint) => ({ method: 'eth_call', params: [{ to, data }, numberToHex(block)] });

export interface NodeBlockFacts {
  number: bigint;
  hash: Hex;
  miner: Hex;
  transactions: number;
  gasUsed: bigint;
  /** by the reference's definition: every trace but a transaction's top-level call */
  internalTransactions: number;
}

interface TraceEntry {
  type: string;
  traceAddress: number[];
}

/** The node's blocks 0..`to`, with what the block fields are derived from (its own traces). */
export async function nodeBlocks(url: string, to: bigint): Promise<NodeBlockFacts[]> {
  const numbers = Array.from({ length: Number(to) + 1 }, (_, n) => numberToHex(n));
  const blocks = await rpcBatch<{ number: Hex; hash: Hex; miner: Hex; gasUsed: Hex; transactions: Hex[] }>(
    url,
    numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [n, false] })),
  );
  const traces = await rpcBatch<TraceEntry[]>(url, numbers.map((n) => ({ method: 'trace_block', params: [n] })), 50);
  return blocks.map((b, i) => ({
    number: BigInt(b.number),
    hash: b.hash.toLowerCase() as Hex,
    miner: b.miner.toLowerCase() as Hex,
    transactions: b.transactions.length,
    gasUsed: BigInt(b.gasUsed),
    internalTransactions: traces[i]!.filter((t) => t.type !== 'reward' && (t.traceAddress.length > 0 || t.type !== 'call')).length,
  }));
}
