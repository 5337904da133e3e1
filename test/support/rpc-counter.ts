/**
 * An HTTP JSON-RPC relay in front of a real node that counts the calls passing through (by
 * method, and balanceOf eth_calls apart), and can hold calls matching a predicate for a while or
 * tell the test the moment one arrives. Everything is forwarded unchanged.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RelayedCall {
  method: string;
  params: unknown[];
}

export const BALANCE_OF_SELECTOR = '0x70a08231';

export const isBalanceOf = (call: RelayedCall): boolean =>
  call.method === 'eth_call' && String((call.params[0] as { data?: string; input?: string } | undefined)?.data ?? '').startsWith(BALANCE_OF_SELECTOR);

export interface RpcCounter {
  url: string;
  /** calls relayed so far, by method; `balanceOf` counts eth_calls of balanceOf(address) */
  counts(): Map<string, number>;
  count(method: string): number;
  /** holds every exchange carrying a matching call for `ms` before relaying it */
  delay(match: (call: RelayedCall) => boolean, ms: number): void;
  /** calls `listener` (once per exchange) when an exchange carrying a matching call arrives; returns its removal */
  onCall(match: (call: RelayedCall) => boolean, listener: () => void): () => void;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startRpcCounter(target: string): Promise<RpcCounter> {
  const counts = new Map<string, number>();
  const delays: Array<{ match: (call: RelayedCall) => boolean; ms: number }> = [];
  const listeners: Array<{ match: (call: RelayedCall) => boolean; listener: () => void }> = [];
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const parsed = JSON.parse(body) as RelayedCall | RelayedCall[];
      const calls = (Array.isArray(parsed) ? parsed : [parsed]).map((c) => ({ method: c.method, params: c.params ?? [] }));
      for (const call of calls) {
        const key = isBalanceOf(call) ? 'balanceOf' : call.method;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      for (const { match, listener } of listeners) if (calls.some(match)) listener();
      const wait = Math.max(0, ...delays.filter((d) => calls.some(d.match)).map((d) => d.ms));
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      try {
        const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const text = await answer.text();
        if (res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(text);
      } catch {
        res.destroy();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts: () => new Map(counts),
    count: (method) => counts.get(method) ?? 0,
    delay: (match, ms) => delays.push({ match, ms }),
    onCall: (match, listener) => {
      const entry = { match, listener };
      listeners.push(entry);
      return () => {
        const at = listeners.indexOf(entry);
        if (at >= 0) listeners.splice(at, 1);
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
