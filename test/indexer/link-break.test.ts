/**
 * A node whose chain contradicts itself: block N's parent hash is not its own block N-1 (outside
 * review, 2026-11-27: a devnet restored from a state file served a new genesis under block 1's
 * old parent; the indexer fetched the range again and again, ~100 requests a second, nothing in
 * the log, /health ok). A proxy in front of a real anvil answers one block with a foreign parent
 * hash (test/support/fault-proxy.ts setBrokenParent: the one mock here, as no node does this on
 * demand); the break inside a range, and at the start of one, whose tip the node still has.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexedBlock } from '../../src/db/queries/progress.js';
import { listChains } from '../../src/db/queries/chains.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { CapturingLogger, startIndexer, waitFor } from '../support/indexer-harness.js';

const SAID = 'fetched again';

describe.each(await availableEngines())('a node whose block does not link to its parent (%s)', (engine) => {
  let node: TestNode;
  let proxy: FaultProxy;
  beforeAll(async () => {
    node = await startTestNode();
    proxy = await startFaultProxy({ target: node.url });
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await node?.stop();
  });

  it('backs off and says which block, /health degraded; indexes on once the node is whole, with no rollback', async () => {
    const database = await freshDatabase(engine);
    const logger = new CapturingLogger();
    const run = await startIndexer(database.db, proxy.url, { logger });
    const failure = async () => (await listChains(database.db)).find((c) => c.chainId === run.chain.chainId)!.failure;
    try {
      await node.mine(8);
      await run.caughtUp({ node: node.url });

      for (const broken of ['inside a range', 'at the start of a range'] as const) {
        const tip = (await indexedBlock(database.db, run.chain.chainId))!.number;
        // inside: the next range starts at the tip + 1 and holds the broken block further on
        const at = broken === 'inside a range' ? tip + 3n : tip + 1n;
        proxy.setBrokenParent(at);
        proxy.resetStats();
        const mark = logger.mark();
        await node.mine(6);
        const said = await waitFor(async () => mark.since().find((e) => e.msg.includes(SAID)), () => `the broken link (${broken}) to be said\n${logger.tail()}`, 30_000, 50);
        expect(said.level).toBe('warn');
        expect(said.obj).toMatchObject({ block: at.toString(), parentHash: `0x${'ba'.repeat(32)}`, refetches: 3 });
        expect(said.msg).toMatch(new RegExp(`^the node's block ${at} has parent hash 0x(ba){32}, but its block ${at - 1n} is 0x[0-9a-f]{64}: fetched again 3 times`));
        await waitFor(async () => ((await failure()) === 'rpc' ? true : undefined), () => '/health to say the node failed', 10_000, 50);
        // backing off: the old code asked for the block ~12 times a second, for good
        const before = proxy.stats().brokenParent;
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        expect(proxy.stats().brokenParent - before).toBeLessThanOrEqual(5);
        // nothing of the range committed, and no block of ours taken for replaced
        expect((await indexedBlock(database.db, run.chain.chainId))!.number).toBeLessThan(at);
        expect(mark.since().filter((e) => e.msg === 'reorg rolled back')).toEqual([]);

        proxy.setBrokenParent(undefined);
        await run.caughtUp({ node: node.url, timeoutMs: 45_000 });
        await waitFor(async () => ((await failure()) === null ? true : undefined), () => 'the failure to clear', 10_000, 50);
      }
      expect(logger.errors()).toEqual([]);
    } finally {
      await run.stop();
      await database.drop();
    }
  }, 150_000);
});
