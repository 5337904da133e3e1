/**
 * Balance history against a real anvil, on both engines: at past blocks of a chain with
 * transfers, mints, burns, ERC-721 moves, ERC-1155 batches and WETH deposits/withdrawals, every
 * holder of every token in our list at a block equals the token's balanceOf at that block on the node,
 * holder counts equal the non-zero holders there, a fungible token's total its totalSupply();
 * after a reorg the lists above the fork point follow the new branch; the horizon prunes
 * what lies below it and keeps the balances at it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contracts } from '../../src/devnet/artifacts.js';
import { generateActivity } from '../../src/devnet/scenario.js';
import { balanceAt } from '../../src/db/queries/balance-history.js';
import { pruneHistory } from '../../src/indexer/history-horizon.js';
import type { Hex } from '../../src/db/rows.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { DEVNET_CHAIN_ID as CHAIN, startIndexer, type RunningIndexer } from '../support/indexer-harness.js';
import { servedBalances, servedInstanceHolders, sortedEntries, truthClient } from '../support/ground-truth.js';
import { startTestApi } from '../support/api.js';
import { buildHistoryChain, servedAt, spreadBlocks, totalSupplyAt, truthAt, type HistoryChain } from '../support/history-truth.js';

describe.each(await availableEngines())('balance history on %s', (engine) => {
  let node: TestNode;
  let truth: ReturnType<typeof truthClient>;
  let chain: HistoryChain;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let run: RunningIndexer;
  let head: bigint;

  beforeAll(async () => {
    [node, database] = await Promise.all([startTestNode(), freshDatabase(engine)]);
    truth = truthClient(node.url);
    chain = await buildHistoryChain(node, 'history');
    run = await startIndexer(database.db, node.url, { indexer: { minBatchBlocks: 3, maxBatchBlocks: 7 } });
    head = await run.caughtUp();
  }, 180_000);
  afterAll(async () => {
    await run?.stop();
    await database?.drop();
    await node?.stop();
  });

  it('serves at six past blocks exactly what the node reports at each', async () => {
    const blocks = spreadBlocks(3n, head - 1n, 6);
    expect(blocks.length).toBe(6);
    for (const block of blocks) {
      const ours = await servedAt(database.db, block);
      const node = await truthAt(truth, block);
      expect(sortedEntries(ours.balances), `balances at ${block}`).toEqual(sortedEntries(node.balances));
      expect(sortedEntries(ours.counts), `holder counts at ${block}`).toEqual(sortedEntries(node.holderCounts));
      for (const token of [chain.scenario.erc20, chain.scenario.weth, chain.burnable]) {
        const key = token.toLowerCase();
        if (ours.totals.has(key)) expect(ours.totals.get(key), `total of ${token} at ${block}`).toBe(await totalSupplyAt(truth, token, block));
      }
    }
  });

  it('answers one balance at any block as balanceOf at that block does', async () => {
    const holders = chain.scenario.holders.slice(0, 6);
    for (const block of spreadBlocks(1n, head, 5)) {
      for (const holder of holders) {
        for (const token of [chain.scenario.erc20, chain.scenario.weth, chain.burnable, chain.scenario.erc721]) {
          const expected = await truth
            .readContract({ address: token, abi: contracts.TestERC20.abi, functionName: 'balanceOf', args: [holder], blockNumber: block })
            .catch(() => 0n);
          expect(await balanceAt(database.db, CHAIN, token.toLowerCase() as Hex, holder.toLowerCase() as Hex, null, block), `${token} ${holder} at ${block}`).toBe(expected);
        }
      }
    }
  });

  it("serves one ERC-1155 id's holders at past blocks as the node has them, two a page on one snapshot", async () => {
    const api = await startTestApi(engine, { db: database.db });
    try {
      const token = chain.scenario.erc1155.toLowerCase();
      const first = (await database.db.query<{ f: string }>('SELECT first_block::text AS f FROM tokens WHERE chain_id = $1 AND address = $2', [CHAIN, Buffer.from(token.slice(2), 'hex')]))[0]!.f;
      let compared = 0;
      for (const block of spreadBlocks(BigInt(first), head - 1n, 4)) {
        const node = await truthAt(truth, block);
        for (const id of chain.scenario.erc1155Ids) {
          const expected = new Map([...node.balances].filter(([key]) => key.startsWith(`${token}|`) && key.endsWith(`|${id}`)));
          const items = await servedInstanceHolders(api, CHAIN, token, id, { items_count: 2, block_number: Number(block) });
          expect(sortedEntries(servedBalances(token, items)), `id ${id} at ${block}`).toEqual(sortedEntries(expected));
          expect(items).toHaveLength(expected.size);
          compared += expected.size;
        }
      }
      expect(compared).toBeGreaterThan(8);
    } finally {
      await api.close();
    }
  });

  it('follows a reorg: the lists and counts above the fork point are the new branch\'s', async () => {
    const base = await node.public.getBlockNumber();
    const saved = await node.snapshot();
    await generateActivity(node, chain.scenario, { maxBlocks: 3, blocksPerSecond: 1_000, txsPerBlock: 6, seed: 'reorg:old' }).done;
    const oldTip = await run.caughtUp();
    const at = base + 2n;
    const before = await servedAt(database.db, at);
    expect(sortedEntries(before.balances)).toEqual(sortedEntries((await truthAt(truth, at)).balances));
    // a client paging that snapshot through the API: the next page's position pins the block's hash
    const api = await startTestApi(engine, { db: database.db });
    const holdersPath = `/${CHAIN}/api/v2/tokens/${chain.scenario.erc20}/holders`;
    const firstPage = await api.get(holdersPath, { block_number: Number(at), items_count: 1 });
    expect(firstPage.status).toBe(200);
    const pinned = firstPage.body.next_page_params;
    expect(pinned).toMatchObject({ block_number: Number(at), block_hash: (await node.public.getBlock({ blockNumber: at })).hash });

    expect(await node.revert(saved)).toBe(true);
    await generateActivity(node, chain.scenario, { maxBlocks: 4, blocksPerSecond: 1_000, txsPerBlock: 6, seed: 'reorg:new' }).done;
    const newTip = await run.caughtUp();
    expect(newTip).toBeGreaterThan(oldTip);
    const after = await servedAt(database.db, at);
    const nodeNow = await truthAt(truth, at);
    expect(sortedEntries(after.balances)).toEqual(sortedEntries(nodeNow.balances));
    expect(sortedEntries(after.counts)).toEqual(sortedEntries(nodeNow.holderCounts));
    // the client's next page is of the replaced block: refused, not served from the new branch
    try {
      const next = await api.get(holdersPath, pinned);
      expect(next.status).toBe(422);
      expect(next.body.errors[0]).toMatchObject({ source: { pointer: '/block_hash' }, detail: expect.stringMatching(new RegExp(`^block ${at} was replaced by a reorg after this paging began`)) });
      // a hash that never was that block's is not called a reorg
      const madeUp = await api.get(holdersPath, { ...pinned, block_hash: `0x${'00'.repeat(32)}` });
      expect([madeUp.status, madeUp.body.errors[0].detail]).toEqual([422, `0x${'00'.repeat(32)} is not the hash of block ${at}: start again from the first page`]);
      const again = await api.get(holdersPath, { block_number: Number(at), items_count: 1 });
      expect(again.body.next_page_params.block_hash).toBe((await node.public.getBlock({ blockNumber: at })).hash);
      expect(again.body.next_page_params.block_hash).not.toBe(pinned.block_hash);
    } finally {
      await api.app.close();
    }
    // the branches differ at that block, so the check above could tell them apart
    expect(sortedEntries(after.balances)).not.toEqual(sortedEntries(before.balances));
    // no interval and no live value starts or ends at an orphaned block
    const consensus = (column: string) =>
      `EXISTS (SELECT 1 FROM blocks b WHERE b.chain_id = $1 AND b.number = ${column} AND b.consensus)`;
    const stray = await database.db.query(
      `SELECT 1 FROM balance_intervals i WHERE i.chain_id = $1 AND i.to_block > $2 AND NOT (${consensus('i.from_block')} AND ${consensus('i.to_block')})
       UNION ALL
       SELECT 1 FROM token_balances l WHERE l.chain_id = $1 AND l.value > 0 AND l.block_number > $2 AND NOT ${consensus('l.block_number')}`,
      [CHAIN, base.toString()],
    );
    expect(stray).toEqual([]);
  });

  it('keeps the history under a horizon above the head, and says once that it is above', async () => {
    const other = await freshDatabase(engine);
    const horizon = 10n ** 12n;
    const above = await startIndexer(other.db, node.url, { chain: { historyFromBlock: horizon } });
    try {
      await above.caughtUp();
      const warned = above.logger.entries.filter((e) => e.msg.startsWith('history horizon (--history-from-block) is above'));
      expect(warned.map((e) => e.obj.horizon)).toEqual([horizon.toString()]);
      const kept = await other.db.query<{ n: string }>('SELECT count(*)::text AS n FROM balance_intervals');
      expect(Number(kept[0]!.n)).toBeGreaterThan(0);
    } finally {
      await above.stop();
      await other.drop();
    }
  });

  it('prunes below the horizon and still answers at and above it', async () => {
    const tip = await run.caughtUp();
    const horizon = tip - 6n;
    const rowsBefore = Number((await database.db.query<{ n: string }>('SELECT count(*)::text AS n FROM balance_intervals'))[0]!.n);
    expect((await pruneHistory(database.db, CHAIN, horizon)).after).toBe(horizon);
    // a lower horizon later brings nothing back: the history still starts where it was pruned
    expect(await pruneHistory(database.db, CHAIN, horizon - 3n)).toEqual({ before: horizon, after: horizon });
    const rowsAfter = Number((await database.db.query<{ n: string }>('SELECT count(*)::text AS n FROM balance_intervals'))[0]!.n);
    expect(rowsAfter).toBeLessThan(rowsBefore);
    expect((await database.db.query<{ f: string }>('SELECT history_from::text AS f FROM chains WHERE chain_id = $1', [CHAIN]))[0]!.f).toBe(horizon.toString());
    for (const block of [horizon, horizon + 3n, tip]) {
      const ours = await servedAt(database.db, block);
      expect(sortedEntries(ours.balances), `balances at ${block}`).toEqual(sortedEntries((await truthAt(truth, block)).balances));
    }
  });
});
