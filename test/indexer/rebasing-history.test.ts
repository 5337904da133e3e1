/**
 * A rebasing token's snapshots at past blocks, indexed as README ("rebasingTokens") tells a team
 * that needs them exact: `maxBlocksPerRange: 1` and `rebasingSweepBatches: 1`, so that every
 * holder is read with balanceOf at every block. Rebases up and down, whole balances moved out,
 * a backfill and then head following, and a reorg across a rebase; at every block from the
 * token's first on, the holders served at that block (and their count and sum) must be the
 * contract's balanceOf and totalSupply() at that block.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from '../../src/db/rows.js';
import { deployRebasingToken, moveAll, moveTokens, rebase, type RebasingToken } from '../../src/devnet/rebasing.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { truthClient } from '../support/ground-truth.js';
import { servedAt, totalSupplyAt, truthAt } from '../support/history-truth.js';
import { startIndexer, type RunningIndexer } from '../support/indexer-harness.js';

const SINK = '0x00000000000000000000000000000000000000aa';
/** holding key → value, as one comparable text */
const listed = (balances: ReadonlyMap<string, bigint>) => [...balances].map(([k, v]) => `${k}=${v}`).sort().join('\n');

describe.each(await availableEngines())('a rebasing token read at every block, its past blocks on %s', (engine) => {
  let node: TestNode;
  let token: RebasingToken;
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let indexer: RunningIndexer;
  let firstBlock: bigint;

  beforeAll(async () => {
    node = await startTestNode();
    token = await deployRebasingToken(node, { holders: 30, perTx: 30, seed: `rebasing-history:${engine}` });
    firstBlock = await node.public.getBlockNumber();
    const [a, b, c, d] = token.holders as [Hex, Hex, Hex, Hex];
    // the backfill's part: rebases inside what would otherwise be one range
    await moveTokens(node, token.address, [{ from: a, to: b, amount: 10n ** 18n }]);
    await rebase(node, token.address, 11n, 10n);
    await node.mine(1);
    await moveAll(node, token.address, c, d);
    await rebase(node, token.address, 8n, 10n);
    await moveAll(node, token.address, d, SINK);
    await node.mine(2);
    fresh = await freshDatabase(engine);
    indexer = await startIndexer(fresh.db, node.url, {
      chain: { rebasingTokens: [token.address.toLowerCase() as Hex], maxBlocksPerRange: 1, rebasingSweepBatches: 1 },
    });
    await indexer.caughtUp({ timeoutMs: 120_000 });
    // head following: a rebase, then a branch with another that a reorg replaces
    await rebase(node, token.address, 21n, 20n);
    await indexer.caughtUp({ timeoutMs: 60_000 });
    const fork = await node.snapshot();
    await rebase(node, token.address, 2n, 1n);
    await node.mine(2);
    await indexer.caughtUp({ timeoutMs: 60_000 });
    await node.revert(fork);
    await node.mine(1);
    await rebase(node, token.address, 1n, 2n);
    await moveAll(node, token.address, b, SINK);
    await node.mine(2);
    await indexer.caughtUp({ timeoutMs: 60_000 });
  }, 300_000);
  afterAll(async () => {
    await indexer?.stop();
    await fresh?.drop();
  });

  it('every block from the first on serves balanceOf, the holder count and totalSupply() at that block', async () => {
    const client = truthClient(node.url);
    const head = await client.getBlockNumber();
    const mismatched: string[] = [];
    for (let block = firstBlock; block <= head; block++) {
      const [served, truth, supply] = await Promise.all([servedAt(fresh.db, block), truthAt(client, block), totalSupplyAt(client, token.address, block)]);
      const key = token.address.toLowerCase();
      const same =
        listed(served.balances) === listed(truth.balances) &&
        served.counts.get(key) === truth.holderCounts.get(key) &&
        served.totals.get(key) === supply;
      if (!same) mismatched.push(`block ${block}: ${served.counts.get(key)} holders, total ${served.totals.get(key)}; node ${truth.holderCounts.get(key)}, ${supply}`);
    }
    expect(head - firstBlock).toBeGreaterThan(10n);
    expect(mismatched).toEqual([]);
  }, 120_000);
});
