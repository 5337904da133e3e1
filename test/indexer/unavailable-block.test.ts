/**
 * A block the node keeps not giving (none for its number while its head is past it: a provider's
 * backends on different branches, a node that stores a transaction under two hashes) stood the
 * index still for good with nothing above debug level, /health ok and the failure metric 0
 * (OP-stack review). Now, from the third replan of the same block, the log says which block and
 * what is wrong with it, /health records a failing RPC node, and the metric counts; once the node
 * gives it, indexing goes on and the failure clears.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { freshDatabase } from '../support/databases.js';
import { startIndexer, waitFor } from '../support/indexer-harness.js';
import { IndexerMetrics } from '../../src/indexer/metrics.js';
import { listChains } from '../../src/db/queries/chains.js';
import { indexedBlock } from '../../src/db/queries/progress.js';

interface Call {
  id: number;
  method: string;
  params?: unknown[];
}

/** The node behind a relay that answers `null` for eth_getBlockByNumber of the block `withheld()` names. */
async function withholdingRelay(target: string, withheld: () => bigint | null): Promise<{ url: string; close(): void }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      void (async () => {
        const parsed = JSON.parse(body) as Call | Call[];
        const calls = Array.isArray(parsed) ? parsed : [parsed];
        const answer = (await (await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json()) as { id: number } | Array<{ id: number }>;
        const answers = Array.isArray(answer) ? answer : [answer];
        const block = withheld();
        for (const call of calls) {
          if (block === null || call.method !== 'eth_getBlockByNumber' || call.params?.[0] !== `0x${block.toString(16)}`) continue;
          const entry = answers.find((a) => a.id === call.id);
          if (entry) Object.assign(entry, { result: null });
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(parsed) ? answers : answers[0]));
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

describe('a block the node does not give while its head is past it', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode();
    await node.mine(12);
  }, 60_000);
  afterAll(async () => {
    await node?.stop();
  });

  it('is said at warn with the block and the problem, recorded for /health and counted; once given, indexing goes on and the failure clears', async () => {
    let withheld: bigint | null = 6n;
    const relay = await withholdingRelay(node.url, () => withheld);
    const fresh = await freshDatabase('pglite');
    const metrics = new IndexerMetrics();
    const failures = async () => (await metrics.stepFailures.get()).values.reduce((sum, v) => sum + v.value, 0);
    // small waits, so that three replans take seconds, not a minute
    const indexer = await startIndexer(fresh.db, relay.url, { metrics, chain: { pollIntervalMs: 50 }, indexer: { minBatchBlocks: 1, maxBatchBlocks: 2 } });
    try {
      const said = await waitFor(
        async () => indexer.logger.entries.find((e) => e.level === 'warn' && e.msg.startsWith('the node has not given block 6 as itself')),
        () => `no warning about block 6; indexed ${indexer.logger.tail()}`,
        60_000,
      );
      expect(said.msg).toMatch(/\(block not available yet\); retrying$/);
      expect(said.obj).toMatchObject({ block: '6', problem: 'block not available yet' });
      expect((await indexedBlock(fresh.db, indexer.chain.chainId))?.number).toBe(5n);
      const [chain] = await listChains(fresh.db);
      expect(chain!.failure).toBe('rpc');
      expect(chain!.failingSince).not.toBeNull();
      expect(await failures()).toBeGreaterThan(0);

      withheld = null;
      await indexer.caughtUp({ node: node.url });
      await waitFor(async () => ((await listChains(fresh.db))[0]!.failingSince === null ? true : undefined), () => 'the failure was not cleared', 10_000);
    } finally {
      await indexer.stop();
      relay.close();
      await fresh.drop();
    }
  }, 120_000);
});
