/**
 * What following the head costs the node, counted by a relay in front of a real anvil mining a
 * block every half second, the indexer polling every second (the default): the tip just written
 * is not asked for again (a fast-chain review found every block asked twice at the head, the
 * second time ~190 ms after the first), and a tip the node replaced while no new block came is
 * still found, at the next poll.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { startRpcCounter, type RpcCounter } from '../support/rpc-counter.js';
import { freshDatabase } from '../support/databases.js';
import { nodeHead, startIndexer, waitFor, type RunningIndexer } from '../support/indexer-harness.js';
import { indexedBlock } from '../../src/db/queries/progress.js';
import type { Database } from '../../src/db/client.js';

let node: TestNode;
let counter: RpcCounter;
let db: Database;
let drop: () => Promise<void>;
let run: RunningIndexer;
let tipChecks = 0;

beforeAll(async () => {
  node = await startTestNode();
  await node.mine(3);
  counter = await startRpcCounter(node.url);
  counter.onCall((call) => call.method === 'eth_getBlockByNumber' && call.params[1] === false, () => tipChecks++);
  ({ db, drop } = await freshDatabase('pglite'));
  run = await startIndexer(db, counter.url, { chain: { pollIntervalMs: 1_000 } });
  await run.caughtUp({ node: node.url });
}, 120_000);
afterAll(async () => {
  await run?.stop();
  await drop?.();
  await counter?.close();
  await node?.stop();
});

it('a block every 0.5 s: each fetched once, the tip just written not asked again', async () => {
  const start = await nodeHead(node.url);
  tipChecks = 0;
  // (anvil's interval mining takes whole seconds)
  for (let i = 0; i < 16; i++) {
    await node.mine(1);
    await new Promise((r) => setTimeout(r, 500));
  }
  const end = await run.caughtUp({ node: node.url });
  const blocks = Number(end - start.number);
  expect(blocks).toBeGreaterThanOrEqual(10);
  // every poll finds a new block, so no poll ends at a tip that is not fresh: before, one a poll
  expect(tipChecks, `${tipChecks} hash-only block calls for ${blocks} blocks`).toBeLessThanOrEqual(2);
}, 60_000);

it('a tip replaced while no new block comes is found at the next poll', async () => {
  const tip = await run.caughtUp({ node: node.url });
  await node.reorg(1);
  const replaced = await nodeHead(node.url);
  expect(replaced.number).toBe(tip);
  await waitFor(
    async () => ((await indexedBlock(db, 31337))?.hash === replaced.hash ? true : undefined),
    () => `the index to take the node's new tip ${replaced.hash}\n${run.logger.tail()}`,
    10_000,
  );
}, 30_000);
