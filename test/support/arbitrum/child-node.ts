/**
 * An Arbitrum child node for tests: a real anvil behind a JSON-RPC proxy that adds Nitro's header
 * fields to every block it returns (`l1BlockNumber`, `sendCount`, `sendRoot`), as a Nitro node's
 * blocks carry them. STAND-IN for those four header values only (anvil cannot produce them; the
 * recorded Arbitrum Sepolia blocks in ../shared/fixtures/real test them for real); every other
 * byte is anvil's.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keccak256, numberToHex, type Hex } from 'viem';

type JsonRpc = { id?: unknown; method?: string; result?: unknown };

/** The header fields this proxy gives block `number` (so a test knows what the node says). */
export function arbitrumHeader(number: bigint): { l1BlockNumber: Hex; sendCount: Hex; sendRoot: Hex } {
  return { l1BlockNumber: numberToHex(1_000n + number), sendCount: numberToHex(number / 3n), sendRoot: keccak256(numberToHex(number, { size: 32 })) };
}

function decorate(result: unknown): unknown {
  if (result === null || typeof result !== 'object' || !('number' in result)) return result;
  return { ...result, ...arbitrumHeader(BigInt((result as { number: Hex }).number)) };
}

export async function startArbitrumChildProxy(anvilUrl: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const parsed = JSON.parse(body) as JsonRpc | JsonRpc[];
      const requests = Array.isArray(parsed) ? parsed : [parsed];
      fetch(anvilUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then((r) => r.json() as Promise<JsonRpc | JsonRpc[]>)
        .then((answer) => {
          const responses = Array.isArray(answer) ? answer : [answer];
          const methods = new Map(requests.map((r) => [JSON.stringify(r.id), r.method]));
          for (const response of responses) {
            const method = methods.get(JSON.stringify(response.id));
            if (method === 'eth_getBlockByNumber' || method === 'eth_getBlockByHash') response.result = decorate(response.result);
          }
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(Array.isArray(answer) ? responses : responses[0]));
        })
        .catch(() => {
          res.writeHead(502);
          res.end();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
