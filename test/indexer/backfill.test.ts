/**
 * The backfill path (issue 14) against a real anvil, on both engines: a chain indexed afresh is
 * written into partitions of its own without their page indexes while it is more than the reorg
 * window behind the head, and the indexes are built in bulk once a batch reaches where a reorg
 * could (the batch that crosses into the window is still the backfill's). Checked against the node: the balances at past blocks on both sides of that boundary,
 * and a reorg whose fork point is the boundary itself (the last block the backfill wrote), rolled
 * back exactly, with the new branch served above it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateActivity } from '../../src/devnet/scenario.js';
import { partitionState } from '../../src/db/chain-partitions.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { DEVNET_CHAIN_ID as CHAIN, startIndexer, type RunningIndexer } from '../support/indexer-harness.js';
import { sortedEntries, truthClient } from '../support/ground-truth.js';
import { buildHistoryChain, servedAt, spreadBlocks, truthAt, type HistoryChain } from '../support/history-truth.js';

const WINDOW = 6;

describe.each(await availableEngines())('the backfill path on %s', (engine) => {
  let node: TestNode;
  let truth: ReturnType<typeof truthClient>;
  let chain: HistoryChain;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let run: RunningIndexer;
  /** the last block below the reorg window when indexing began: the backfill's last */
  let boundary: bigint;
  let head: bigint;
  let atBoundary: Awaited<ReturnType<TestNode['snapshot']>>;

  beforeAll(async () => {
    [node, database] = await Promise.all([startTestNode(), freshDatabase(engine)]);
    truth = truthClient(node.url);
    chain = await buildHistoryChain(node, 'backfill');
    boundary = await node.public.getBlockNumber();
    atBoundary = await node.snapshot();
    await generateActivity(node, chain.scenario, { maxBlocks: WINDOW, blocksPerSecond: 1_000, txsPerBlock: 6, seed: 'backfill:old' }).done;
    head = await node.public.getBlockNumber();
    expect(head - boundary).toBe(BigInt(WINDOW));
    run = await startIndexer(database.db, node.url, { chain: { reorgWindow: WINDOW }, indexer: { minBatchBlocks: 2, maxBatchBlocks: 3 } });
    expect(await run.caughtUp()).toBe(head);
  }, 180_000);
  afterAll(async () => {
    await run?.stop();
    await database?.drop();
    await node?.stop();
  });

  it('writes below the reorg window without the page indexes and builds them in bulk once a batch reaches above it', async () => {
    const entries = run.logger.entries;
    expect(entries.find((e) => e.msg === 'starting')?.obj.backfill).toBe(true);
    const handOver = entries.findIndex((e) => e.msg === 'backfill: building page indexes');
    expect(entries.filter((e) => e.msg === 'backfill finished: page indexes built')).toHaveLength(1);
    const committed = (from: number, to?: number) =>
      entries.slice(from, to).filter((e) => e.msg === 'batch committed').map((e) => BigInt(String(e.obj.indexed)));
    const before = committed(0, handOver);
    const after = committed(handOver);
    expect(before.length).toBeGreaterThan(1);
    // every backfill batch starts at or below the boundary (the one before it ended below it);
    // the last reaches the boundary, may cross into the window, and the hand-over follows it
    expect(before.slice(0, -1).every((b) => b < boundary)).toBe(true);
    expect(before.at(-1)!).toBeGreaterThanOrEqual(boundary);
    expect(after.every((b) => b > boundary)).toBe(true);
    expect(await partitionState(database.db, CHAIN)).toBe('indexed');
    // the chain's own copies of every index the migrations give the default partitions
    const indexes = await database.db.query<{ name: string }>(
      `SELECT indexname AS name FROM pg_indexes WHERE tablename IN ('token_balances_${CHAIN}', 'balance_intervals_${CHAIN}') ORDER BY 1`,
    );
    expect(indexes.map((i) => i.name)).toEqual(
      expect.arrayContaining(
        ['balance_intervals_key', 'balance_intervals_page', 'balance_intervals_by_end', 'token_balances_page', 'token_balances_by_holder', 'token_balances_negative'].map((name) =>
          name.replace(/^(token_balances|balance_intervals)_/, `$1_${CHAIN}_`),
        ),
      ),
    );
  });

  it('serves at past blocks on both sides of the boundary what the node reports at each', async () => {
    for (const block of [...spreadBlocks(3n, head, 5), boundary, boundary + 1n]) {
      const ours = await servedAt(database.db, block);
      const node = await truthAt(truth, block);
      expect(sortedEntries(ours.balances), `balances at ${block}`).toEqual(sortedEntries(node.balances));
      expect(sortedEntries(ours.counts), `holder counts at ${block}`).toEqual(sortedEntries(node.holderCounts));
    }
  });

  it('rolls back exactly a reorg whose fork point is the boundary and serves the new branch above it', async () => {
    const before = await servedAt(database.db, boundary + 2n);
    expect(await node.revert(atBoundary)).toBe(true);
    await generateActivity(node, chain.scenario, { maxBlocks: WINDOW + 2, blocksPerSecond: 1_000, txsPerBlock: 6, seed: 'backfill:new' }).done;
    const tip = await run.caughtUp();
    const rollbacks = run.logger.entries.filter((e) => e.msg === 'reorg rolled back').map((e) => ({ depth: Number(e.obj.depth), exact: e.obj.exact }));
    expect(rollbacks).toEqual([{ depth: WINDOW, exact: true }]);
    for (const block of [boundary, boundary + 1n, boundary + 2n, tip]) {
      const ours = await servedAt(database.db, block);
      const node = await truthAt(truth, block);
      expect(sortedEntries(ours.balances), `balances at ${block}`).toEqual(sortedEntries(node.balances));
      expect(sortedEntries(ours.counts), `holder counts at ${block}`).toEqual(sortedEntries(node.holderCounts));
    }
    // the branches differ above the boundary, so the checks above could tell them apart
    expect(sortedEntries((await servedAt(database.db, boundary + 2n)).balances)).not.toEqual(sortedEntries(before.balances));
  });
});
