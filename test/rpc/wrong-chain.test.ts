/**
 * Every RPC URL of a chain serves that chain, fallbacks included (outside review: a fallback
 * serving another chain was taken for a reorg as deep as the index). Two real anvil nodes with
 * different chain ids; a third URL that refuses connections stands for a fallback that is down
 * at start.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config.js';
import { ForeignChainError, verifyChainId } from '../../src/indexer/chain-identity.js';
import { indexedBlock } from '../../src/db/queries/progress.js';
import { createRpcClient, type RpcLogger } from '../../src/rpc/client.js';
import { WrongChainError } from '../../src/rpc/errors.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { freshDatabase } from '../support/databases.js';
import { CapturingLogger, startIndexer, testChainConfig, waitFor } from '../support/indexer-harness.js';
import { startIndexers } from '../../src/indexer/run.js';
import { ensureChain, listChains } from '../../src/db/queries/chains.js';

const CHAIN = 31337;
const OTHER = 5;
/** nothing listens there: connections are refused at once */
const DOWN = 'http://127.0.0.1:9';

function recordingLogger() {
  const lines: Array<{ msg: string | undefined; obj: Record<string, unknown> }> = [];
  const log = (obj: Record<string, unknown>, msg?: string) => void lines.push({ msg, obj });
  return { lines, logger: { warn: log, info: log, debug: () => undefined } satisfies RpcLogger };
}

/** A JSON-RPC node over HTTP that answers each call (batched or not) with what `answer` says: `result` or `error`. */
async function scriptedNode(answer: (call: { id: number; method: string }) => object): Promise<{ url: string; close(): void }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const parsed = JSON.parse(body) as { id: number; method: string } | Array<{ id: number; method: string }>;
      const reply = (call: { id: number; method: string }) => ({ jsonrpc: '2.0', id: call.id, ...answer(call) });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(parsed) ? parsed.map(reply) : reply(parsed)));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

describe('RPC URLs serving another chain', () => {
  let right: TestNode;
  let wrong: TestNode;
  beforeAll(async () => {
    [right, wrong] = await Promise.all([startTestNode(), startTestNode({ chainId: OTHER })]);
    await wrong.mine(3);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([right?.stop(), wrong?.stop()]);
  });

  const client = (urls: string[], logger?: RpcLogger) =>
    createRpcClient({ chainId: CHAIN, urls, logger, retry: { baseDelayMs: 10, maxDelayMs: 20, maxRounds: 2 } });

  it('at start, a fallback serving another chain is a configuration error naming it', async () => {
    const rpc = client([right.url, wrong.url]);
    try {
      const refused = await verifyChainId(rpc, CHAIN).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ConfigError);
      expect((refused as Error).message).toBe(`chain ${CHAIN}: the RPC endpoint ${wrong.url} serves chain id ${OTHER}, not ${CHAIN}`);
    } finally {
      rpc.close();
    }
  });

  it('at start, a URL that refuses for good (HTTP 404, over HTTP or as a WebSocket handshake) is an error naming the chain and the URL, not a wait', async () => {
    const notFound = createServer((_req, res) => res.writeHead(404).end('not found'));
    await new Promise<void>((r) => notFound.listen(0, '127.0.0.1', r));
    const port = (notFound.address() as AddressInfo).port;
    try {
      for (const url of [`http://127.0.0.1:${port}/v2/x`, `ws://127.0.0.1:${port}/v2/x`]) {
        const rpc = client([url]);
        try {
          const refused = await verifyChainId(rpc, CHAIN).catch((e: unknown) => e);
          expect(refused, url).toBeInstanceOf(ConfigError);
          expect((refused as Error).message).toMatch(new RegExp(`^chain ${CHAIN}: (http|ws)://127\\.0\\.0\\.1:${port}\\S* did not say which chain it serves: eth_chainId: .*404`));
        } finally {
          rpc.close();
        }
      }
    } finally {
      notFound.close();
    }
  });

  it('at start, a JSON-RPC error in place of the chain id is asked again, not the end of the process (a provider backend starting)', async () => {
    // the node's own answer once the backend is up; errors before that
    let asked = 0;
    const flaky = await scriptedNode((call) => {
      asked += call.method === 'eth_chainId' ? 1 : 0;
      return asked <= 2 ? { error: { code: -32000, message: 'no backend is serving this request' } } : { result: `0x${CHAIN.toString(16)}` };
    });
    const { lines, logger } = recordingLogger();
    const rpc = client([flaky.url], logger);
    try {
      await verifyChainId(rpc, CHAIN, 10);
      expect(asked).toBeGreaterThanOrEqual(3);
      expect(lines.filter((l) => l.msg === 'the node answered eth_chainId with an error; asking again').length).toBeGreaterThanOrEqual(1);
    } finally {
      rpc.close();
      flaky.close();
    }
  });

  it('at start, a key refused as a JSON-RPC error (over HTTP 200) is an error naming the chain and the URL, not a wait', async () => {
    let asked = 0;
    const keyed = await scriptedNode(() => (asked++, { error: { code: -32000, message: 'Must be authenticated!' } }));
    const url = keyed.url;
    const rpc = client([url]);
    try {
      const refused = await Promise.race([verifyChainId(rpc, CHAIN, 10).catch((e: unknown) => e), new Promise((r) => setTimeout(() => r('still waiting'), 10_000))]);
      expect(refused).toBeInstanceOf(ConfigError);
      expect((refused as Error).message).toBe(`chain ${CHAIN}: ${url} refused the request as unauthorised (JSON-RPC error -32000): check the API key in the RPC URL`);
      expect(asked).toBeGreaterThanOrEqual(1);
    } finally {
      rpc.close();
      keyed.close();
    }
  });

  it('a URL down at start is asked before its first use, and one serving another chain is never used', async () => {
    const { lines, logger } = recordingLogger();
    const rpc = client([wrong.url, DOWN, right.url], logger);
    try {
      // the primary's blocks would be the other chain's: every call must reach the right node
      const [head, block] = await Promise.all([rpc.getBlockNumber(), rpc.getBlock(0n, false)]);
      expect(head).toBe(await right.public.getBlockNumber());
      expect(block?.hash).toBe((await right.public.getBlock({ blockNumber: 0n })).hash);
      expect(await rpc.getBlockNumber()).toBe(head);
      expect(lines.filter((l) => l.msg === 'RPC URL serves another chain; it will not be used').map((l) => l.obj.url)).toEqual([wrong.url]);
    } finally {
      rpc.close();
    }
  });

  it('when every URL serves another chain, calls fail at once with WrongChainError', async () => {
    const other = wrong.url.replace('127.0.0.1', 'localhost');
    const rpc = client([wrong.url, other]);
    try {
      const started = Date.now();
      const failed = await rpc.getBlockNumber().catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(WrongChainError);
      expect((failed as Error).message).toBe(
        `chain ${CHAIN}: the RPC endpoint ${wrong.url} serves chain id ${OTHER}; the RPC endpoint ${other} serves chain id ${OTHER}, not ${CHAIN}`,
      );
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      rpc.close();
    }
  });
});

describe('a node that shares not even the first indexed block', () => {
  it('stops the indexer with a clear error instead of resetting every balance', async () => {
    // two fresh devnets: the same chain id, other genesis blocks (a node reset, or another chain)
    const first = await startTestNode();
    const second = await startTestNode({ baseFee: 7 }); // another genesis block
    const database = await freshDatabase('pglite');
    try {
      await first.mine(3);
      await second.mine(5);
      expect((await first.public.getBlock({ blockNumber: 0n })).hash).not.toBe((await second.public.getBlock({ blockNumber: 0n })).hash);
      const before = await startIndexer(database.db, first.url);
      await before.caughtUp();
      await before.stop();
      const after = await startIndexer(database.db, second.url);
      const stopped = await after.done.then(
        () => null,
        (e: unknown) => e,
      );
      expect(stopped).toBeInstanceOf(ForeignChainError);
      expect((stopped as Error).message).toMatch(/^chain 31337: the node's blocks differ from the index's all the way down to block 0, the first indexed/);
      // nothing was rolled back: the index still holds the first node's blocks
      expect((await indexedBlock(database.db, CHAIN))?.number).toBe(3n);
      // and the database says it stopped, though it was the process's only chain (outside
      // review: the last chain's stop went unrecorded, and the readers' /health stayed ok)
      const status = (await listChains(database.db)).find((c) => c.chainId === CHAIN)!;
      expect([status.failure, status.failingSince === null]).toEqual(['stopped', false]);
    } finally {
      await database.drop();
      await Promise.all([first.stop(), second.stop()]);
    }
  }, 60_000);

  it('with other chains in the process, only the foreign one stops: the others go on, and the database says which stopped', async () => {
    const first = await startTestNode();
    const second = await startTestNode({ baseFee: 7 });
    const other = await startTestNode({ chainId: OTHER });
    const database = await freshDatabase('pglite');
    const logger = new CapturingLogger();
    try {
      await first.mine(3);
      await second.mine(5);
      const before = await startIndexer(database.db, first.url);
      await before.caughtUp();
      await before.stop();
      // chain 31337 now on a node reset to other blocks, chain 5 on a healthy node
      const chains = [testChainConfig(second.url), testChainConfig(other.url, { chainId: OTHER })];
      for (const c of chains) await ensureChain(database.db, c.chainId);
      const handle = startIndexers(database.db, chains, logger, { rpc: { timeoutMs: 10_000, retry: { baseDelayMs: 20, maxDelayMs: 200 } }, enrichment: false });
      let ended = false;
      void handle.done.then(
        () => (ended = true),
        () => (ended = true),
      );
      const indexedOf = async (chainId: number) => (await indexedBlock(database.db, chainId))?.number ?? null;
      await waitFor(async () => logger.entries.find((e) => e.msg.startsWith('indexing of this chain stopped')), () => 'the foreign chain to stop', 30_000, 100);
      // the other chain follows its node's new blocks after that
      await other.mine(4);
      const head = await other.public.getBlockNumber();
      await waitFor(async () => ((await indexedOf(OTHER)) === head ? true : undefined), () => `chain ${OTHER} to reach ${head}`, 30_000, 100);
      expect(ended).toBe(false);
      const stopped = logger.entries.find((e) => e.msg.startsWith('indexing of this chain stopped'))!;
      expect(stopped.obj.chainId).toBe(CHAIN);
      const status = (await listChains(database.db)).find((c) => c.chainId === CHAIN)!;
      expect([status.failure, status.failingSince === null]).toEqual(['stopped', false]);
      expect(await indexedOf(CHAIN)).toBe(3n);
      await handle.stop();
    } finally {
      await database.drop();
      await Promise.all([first.stop(), second.stop(), other.stop()]);
    }
  }, 60_000);
});
