/**
 * Indexing from a remote provider: a real anvil node behind the fault proxy, which adds a
 * provider's round trip (latency) and, in the second case, its rate limit (429 with
 * Retry-After). What is checked is what the proxy sees — requests open at once, calls admitted
 * per second, requests that ignored a Retry-After — and that the index ends equal to the node
 * (balances, holder counts, supplies, blocks). Nothing here is timed against a threshold: the
 * caps are counts the proxy measures, so a slow machine makes the test slower, not red.
 */
import { describe, expect, it } from 'vitest';
import { compareWithNode, describeReport, mismatchCount } from '../support/crash-harness.js';
import { useCrashChainNode } from '../support/crash-chain-node.js';
import { availableEngines, freshDatabase, type Engine } from '../support/databases.js';
import { startFaultProxy, type FaultProxyOptions, type FaultStats } from '../support/fault-proxy.js';
import { CapturingLogger, DEVNET_CHAIN_ID, startIndexer, type RunningIndexer } from '../support/indexer-harness.js';
import { createRpcClient } from '../../src/rpc/client.js';
import type { Queryable } from '../../src/db/client.js';

const engines = await availableEngines();
const SEED = 'remote-node';

describe('indexing from a remote, rate-limited node', () => {
  const devnet = useCrashChainNode({
    bulk: { transfers: 1_500, tokens: 3, holders: 200, transfersPerTx: 10, txsPerBlock: 2, seed: SEED },
    miners: 3,
    emptyBlocks: 150,
    seed: SEED,
  });

  /** Balances, holder counts, supplies and blocks against the node, up to its head. */
  const expectEqualToNode = async (db: Queryable) => {
    const report = await compareWithNode(db, { url: devnet.node.url, chainId: DEVNET_CHAIN_ID, holdings: devnet.chain.holdings });
    expect(report.indexedBlock).toBe(devnet.chain.head);
    expect(mismatchCount(report), describeReport(report)).toBe(0);
  };

  /**
   * Indexes the chain from a fresh database through a proxy with `proxyOptions` until the head,
   * hands the proxy's counts and the run to `check`, then holds the index against the node.
   */
  const indexThroughProxy = async (
    engine: Engine,
    proxyOptions: Omit<FaultProxyOptions, 'target'>,
    options: Parameters<typeof startIndexer>[2],
    check: (stats: FaultStats, run: RunningIndexer) => void,
  ) => {
    const proxy = await startFaultProxy({ target: devnet.node.url, ...proxyOptions });
    const { db, drop } = await freshDatabase(engine);
    try {
      const run = await startIndexer(db, proxy.url, options);
      try {
        await run.caughtUp({ node: devnet.node.url, timeoutMs: 300_000 });
      } finally {
        await run.stop();
      }
      check(proxy.stats(), run);
      await expectEqualToNode(db);
    } finally {
      await proxy.close();
      await drop();
    }
  };

  it.each(engines)(
    'on %s: requests in flight and calls per second stay within the configured caps, and the caps are used',
    async (engine) => {
      const CONCURRENCY = 3;
      const BATCH = 8;
      const PER_SECOND = 400;
      const chain = { rpcConcurrency: CONCURRENCY, rpcBatchSize: BATCH, rpcRequestsPerSecond: PER_SECOND };
      await indexThroughProxy(engine, { latencyMs: 20 }, { chain }, (stats) => {
        console.log(`remote node on ${engine}: ${stats.requests} requests, at most ${stats.maxInFlight} open, at most ${stats.maxCallsPerSecond} calls in a second`);
        expect(stats.maxInFlight).toBeLessThanOrEqual(CONCURRENCY);
        // the fetch runs far enough ahead to fill every slot while answers are 20 ms away
        expect(stats.maxInFlight).toBe(CONCURRENCY);
        // the token bucket lets a quarter second's calls (or one batch) through at once
        expect(stats.maxCallsPerSecond).toBeLessThanOrEqual(PER_SECOND * 1.25 + BATCH + 1);
        expect(stats.limited).toBe(0);
      });
    },
    600_000,
  );

  it.each(engines)(
    'on %s: a provider whose limit is below what is sent is waited out as it asks (Retry-After) and taught a rate, and the index ends equal to the node',
    async (engine) => {
      const LIMIT = 120;
      // no cap of our own: the provider's 429s must teach the budget one
      const proxy = { latencyMs: 10, limit: { callsPerSecond: LIMIT, retryAfterSeconds: 2 } };
      const options = { chain: { rpcConcurrency: 8, rpcBatchSize: 20, rpcRequestsPerSecond: 0 }, retry: { maxRetryAfterMs: 5_000 } };
      await indexThroughProxy(engine, proxy, options, (stats, run) => {
        const lowered = run.logger.find('RPC URL rate-limits us', 'warn');
        console.log(
          `429 storm on ${engine}: ${stats.requests} requests, ${stats.limited} refused with 429, ${stats.ignoredRetryAfter} inside a Retry-After, ` +
            `rate lowered ${lowered.length} times to ${lowered.map((e) => e.obj['callsPerSecond']).join(', ')} calls/s`,
        );
        expect(stats.limited).toBeGreaterThan(0);
        expect(lowered.length).toBeGreaterThan(0);
        // every request of the URL waits out a Retry-After, not only the refused one
        expect(stats.ignoredRetryAfter).toBe(0);
        expect(run.logger.errors()).toEqual([]);
      });
    },
    600_000,
  );

  it('a slow node: while a batch waits for its blocks, the log says so and how many have come', async () => {
    const proxy = await startFaultProxy({ target: devnet.node.url, latencyMs: 400 });
    const { db, drop } = await freshDatabase('pglite');
    const run = await startIndexer(db, proxy.url, { indexer: { minBatchBlocks: 50, waitingLogMs: 300 }, chain: { rpcConcurrency: 1, rpcBatchSize: 3 } });
    try {
      const deadline = Date.now() + 30_000;
      const waiting = () => run.logger.entries.filter((e) => e.msg === 'waiting for blocks from the node');
      while (waiting().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const [first, second] = waiting();
      expect(first?.obj.from).toBe('0');
      expect(Number(second?.obj.fetched)).toBeGreaterThanOrEqual(Number(first?.obj.fetched));
      expect(Number(second?.obj.waitedS)).toBeGreaterThanOrEqual(0);
    } finally {
      await run.stop();
      await proxy.close();
      await drop();
    }
  }, 120_000);

  /** The node's own blocks (with their transactions) and receipts, to hold answers against. */
  const nodeBlocks = async (numbers: bigint[]) =>
    Promise.all(
      numbers.map(async (n) => {
        const block = await devnet.node.public.getBlock({ blockNumber: n, includeTransactions: true });
        const receipts = await Promise.all(block.transactions.map((tx) => devnet.node.public.getTransactionReceipt({ hash: tx.hash })));
        return { hash: block.hash, transactions: block.transactions.length, logs: receipts.reduce((sum, r) => sum + r.logs.length, 0) };
      }),
    );

  // Each as that software refuses: geth's one error with the first call's id, Erigon's and Besu's
  // id-less one (Besu's with -32005, the rate-limit code), a provider that takes no batch at all
  // (not even of one call), and geth's cap on a batch answer's bytes (-32003 for the calls past it).
  it.each([
    { name: 'geth, 3 calls', caps: { calls: 3, words: 'geth' as const }, most: 3 },
    { name: 'Erigon, 3 calls', caps: { calls: 3, words: 'erigon' as const }, most: 3 },
    { name: 'Besu, 3 calls', caps: { calls: 3, words: 'besu' as const }, most: 3 },
    { name: 'no batches', caps: { words: 'none' as const }, most: 0 },
    { name: 'geth, 20 kB of answers', caps: { responseBytes: 20_000 }, most: 40 },
  ])('a URL that refuses batches this large ($name) gets smaller ones, and every answer is the node\'s', async ({ caps, most }) => {
    const proxy = await startFaultProxy({ target: devnet.node.url, batchCaps: caps });
    try {
      const logger = new CapturingLogger();
      const rpc = createRpcClient({ chainId: DEVNET_CHAIN_ID, urls: [proxy.url], logger, concurrency: 4, batchSize: 40, retry: { baseDelayMs: 20, maxDelayMs: 200 } });
      // the whole chain: its blocks of transfers make the largest answers
      const numbers = Array.from({ length: Number(devnet.chain.head) }, (_, i) => BigInt(i + 1));
      const ours = await Promise.all(
        numbers.map(async (n) => {
          const [block, receipts] = await Promise.all([rpc.getBlock(n, true), rpc.getBlockReceipts(n)]);
          return { hash: block?.hash, transactions: block?.transactions.length, logs: receipts?.reduce((sum, r) => sum + r.logs.length, 0) };
        }),
      );
      const stats = proxy.stats();
      const lowered = logger.find('RPC URL refuses batches this large', 'warn');
      console.log(
        `batch caps ${JSON.stringify(caps)}: ${stats.requests} requests, ${stats.batchRefused} batches refused, ${stats.responseTooLarge} calls refused for bytes, ` +
          `largest batch answered ${stats.maxBatchForwarded}, calls per request lowered to ${lowered.map((e) => e.obj['callsPerRequest']).join(', ')}`,
      );
      expect(ours).toEqual(await nodeBlocks(numbers));
      expect(ours.reduce((sum, b) => sum + (b.logs ?? 0), 0)).toBeGreaterThan(0);
      expect(stats.batchRefused + stats.responseTooLarge).toBeGreaterThan(0);
      expect(lowered.length).toBeGreaterThan(0);
      expect(stats.maxBatchForwarded).toBeLessThanOrEqual(most);
      // not a rate limit, whatever its code, nor an error the caller sees
      expect(logger.find('RPC URL rate-limits us', 'warn')).toEqual([]);
      expect(logger.errors()).toEqual([]);
    } finally {
      await proxy.close();
    }
  }, 120_000);

  it.each(engines)(
    'on %s: a node that caps batches (geth: 4 calls, 8 kB of answers) is indexed from in batches it takes, and the index ends equal to the node',
    async (engine) => {
      const proxy = { latencyMs: 5, batchCaps: { calls: 4, responseBytes: 8_000 } };
      await indexThroughProxy(engine, proxy, { chain: { rpcConcurrency: 4, rpcBatchSize: 40 } }, (stats, run) => {
        console.log(`batch caps on ${engine}: ${stats.requests} requests, ${stats.batchRefused} refused whole, ${stats.responseTooLarge} calls refused for bytes`);
        expect(stats.batchRefused).toBeGreaterThan(0);
        expect(stats.responseTooLarge).toBeGreaterThan(0);
        expect(stats.maxBatchForwarded).toBeLessThanOrEqual(4);
        expect(run.logger.find('RPC URL refuses batches this large', 'warn').length).toBeGreaterThan(0);
        expect(run.logger.errors()).toEqual([]);
      });
    },
    600_000,
  );

  it('a Retry-After holds back every request to the URL, not only the refused one; the answers are the node\'s', async () => {
    const proxy = await startFaultProxy({ target: devnet.node.url, limit: { callsPerSecond: 60, retryAfterSeconds: 1 } });
    try {
      const logger = new CapturingLogger();
      const rpc = createRpcClient({ chainId: DEVNET_CHAIN_ID, urls: [proxy.url], logger, concurrency: 4, batchSize: 5, retry: { baseDelayMs: 20, maxDelayMs: 200 } });
      // far more than the limit lets through in a second, all queued at once
      const numbers = Array.from({ length: 300 }, (_, i) => BigInt(i % Number(devnet.chain.head + 1n)));
      const ours = await Promise.all(numbers.map((n) => rpc.getBlock(n, false)));
      const stats = proxy.stats();
      console.log(`Retry-After: ${stats.requests} requests, ${stats.limited} refused, ${stats.ignoredRetryAfter} inside a Retry-After`);
      expect(stats.limited).toBeGreaterThan(0);
      expect(stats.ignoredRetryAfter).toBe(0);
      expect(stats.maxInFlight).toBeLessThanOrEqual(4);
      const truth = await Promise.all([...new Set(numbers)].map((n) => devnet.node.public.getBlock({ blockNumber: n })));
      const hashes = new Map(truth.map((b) => [b.number, b.hash]));
      expect(ours.map((b) => b?.hash)).toEqual(numbers.map((n) => hashes.get(n)));
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
