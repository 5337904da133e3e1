/**
 * Reorganisations under an indexer that follows the head (enrichment running beside it, as
 * `explorer start` runs them): branches as long as ours, shorter and
 * longer, 1, 5 and 64 blocks deep (64 is the default window: rolled back exactly from the
 * recorded deltas) and one deeper than a small window (touched balances reset from balanceOf).
 * After each, the index must equal a fresh index of the final chain and the node's own state,
 * and the orphaned blocks must stay, served as type "reorg" to their miners.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, getAddress, numberToHex, parseEther, type Address, type Hex } from 'viem';
import { contracts } from '../../src/devnet/artifacts.js';
import { deriveAddress } from '../../src/devnet/random.js';
import { deployScenario, generateActivity, type DemoScenario } from '../../src/devnet/scenario.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import {
  DEVNET_CHAIN_ID as CHAIN,
  emptyDatabase,
  indexToHead,
  startIndexer,
  type LogEntry,
  type RunningIndexer,
} from '../support/indexer-harness.js';
import {
  holderCounts,
  indexedState,
  nodeBalances,
  servedBlocksValidated,
  sortedEntries,
  truthClient,
} from '../support/ground-truth.js';

interface ChainBlock {
  number: bigint;
  hash: Hex;
  miner: Hex;
}

describe.each(await availableEngines())('following reorgs on %s', (engine) => {
  let node: TestNode;
  let truth: ReturnType<typeof truthClient>;
  let scenario: DemoScenario;
  let followed: Awaited<ReturnType<typeof freshDatabase>>;
  let reference: Awaited<ReturnType<typeof freshDatabase>>;
  let run: RunningIndexer;
  let api: TestApi;

  /** Distinct miners per branch, so the blocks a reorg replaced are told apart by miner too. */
  const minersOf = (label: string): Address[] => [0, 1].map((i) => deriveAddress(`reorg-miner:${label}`, i));

  /**
   * `blocks` blocks of transfers by this label's miners; past `busy` of them, empty blocks, for
   * long branches quick to mine.
   */
  const mine = async (blocks: number, label: string, busy = blocks) => {
    const activity = generateActivity(node, scenario, { maxBlocks: busy, blocksPerSecond: 1_000, txsPerBlock: 4, miners: minersOf(label), seed: label });
    await activity.done;
    if (blocks > busy) await node.mine(blocks - busy);
  };

  const blocksBetween = (from: bigint, to: bigint): Promise<ChainBlock[]> =>
    Promise.all(
      Array.from({ length: Number(to - from + 1n) }, async (_, i) => {
        const b = await truth.getBlock({ blockNumber: from + BigInt(i) });
        return { number: b.number, hash: b.hash, miner: b.miner.toLowerCase() as Hex };
      }),
    );

  /**
   * Mines an old branch with `buildOld` on top of the current head and waits for the indexer
   * to take it in, then reverts the node to before it and builds the new branch with
   * `buildNew` (other transfers, other miners). Returns the blocks the reorg orphaned.
   */
  const replaceBranch = async (buildOld: () => Promise<void>, buildNew: () => Promise<void>): Promise<ChainBlock[]> => {
    const base = await node.public.getBlockNumber();
    const snapshot = await node.snapshot();
    await buildOld();
    const tip = await run.caughtUp();
    const orphans = await blocksBetween(base + 1n, tip);
    expect(await node.revert(snapshot)).toBe(true);
    await buildNew();
    return orphans;
  };

  /**
   * Transfers left pending, then `blocks` blocks in one anvil_mine: the node jumps from the
   * fork point straight past our tip, so the indexer meets the new branch as a block whose
   * parent is not our tip.
   */
  const mineAtOnce = async (blocks: number, label: string) => {
    await node.setAutomine(false);
    await node.setCoinbase(minersOf(label)[0]!);
    const senders = scenario.holders.slice(5, 9);
    for (const [i, from] of senders.entries()) {
      const balance = await truth.readContract({ address: scenario.erc20, abi: contracts.TestERC20.abi, functionName: 'balanceOf', args: [from] });
      const data = encodeFunctionData({ abi: contracts.TestERC20.abi, functionName: 'transfer', args: [deriveAddress(`${label}:to`, i), balance / 3n] });
      await node.sendTransaction({ from, to: scenario.erc20, data });
    }
    const deposit = encodeFunctionData({ abi: contracts.WETH9.abi, functionName: 'deposit' });
    await node.sendTransaction({ from: scenario.holders[9]!, to: scenario.weth, data: deposit, value: numberToHex(parseEther('2')) });
    await node.mine(blocks);
    await node.setAutomine(true);
    const first = await truth.getBlock({ blockNumber: (await truth.getBlockNumber()) - BigInt(blocks) + 1n });
    expect(first.transactions).toHaveLength(senders.length + 1);
  };

  /** A token that exists only on the branch about to be orphaned. */
  const deployBranchToken = async () => {
    const { address } = await node.deploy(contracts.TestERC20, ['Doomed', 'DOOM', 18]);
    for (const holder of scenario.holders.slice(0, 3)) {
      await node.write({ address, abi: contracts.TestERC20.abi, functionName: 'mint', args: [holder, 10n ** 18n] });
    }
  };

  async function expectIndexMatchesChain(orphans: readonly ChainBlock[]) {
    const head = await run.caughtUp();
    expect(run.logger.find('failed')).toEqual([]);
    const ours = await indexedState(followed.db, CHAIN);

    // the same as indexing the final chain from scratch
    await emptyDatabase(reference.db);
    await indexToHead(reference.db, node.url);
    const fresh = await indexedState(reference.db, CHAIN);
    expect(sortedEntries(ours.blocks)).toEqual(sortedEntries(fresh.blocks));
    expect(sortedEntries(ours.balances)).toEqual(sortedEntries(fresh.balances));
    expect(sortedEntries(ours.holderCounts)).toEqual(sortedEntries(fresh.holderCounts));

    // ... and what the node itself says
    const chain = await blocksBetween(0n, head);
    expect(sortedEntries(ours.blocks)).toEqual(sortedEntries(new Map(chain.map((b) => [b.number, { hash: b.hash, miner: b.miner }]))));
    const balances = await nodeBalances(truth, head);
    expect(sortedEntries(ours.balances)).toEqual(sortedEntries(balances));
    expect(sortedEntries(ours.holderCounts)).toEqual(sortedEntries(holderCounts(balances)));

    // orphans stay, out of consensus, and their miners still see them, as "reorg"
    const stored = await followed.db.query<{ hash: string; consensus: boolean }>(
      "SELECT '0x' || encode(hash, 'hex') AS hash, consensus FROM blocks WHERE chain_id = $1",
      [CHAIN],
    );
    const consensusOf = new Map(stored.map((r) => [r.hash, r.consensus]));
    const replaced = chain.filter((b) => b.number >= orphans[0]!.number);
    const served = new Map<string, any>();
    for (const miner of new Set([...orphans, ...replaced].map((b) => b.miner))) {
      for (const item of await servedBlocksValidated(api, CHAIN, miner)) served.set(item.hash, item);
    }
    for (const o of orphans) {
      expect(consensusOf.get(o.hash), `orphan ${o.number}`).toBe(false);
      expect(served.get(o.hash), `orphan ${o.number}`).toMatchObject({ height: Number(o.number), type: 'reorg', miner: { hash: getAddress(o.miner) } });
    }
    for (const b of replaced) expect(served.get(b.hash), `block ${b.number}`).toMatchObject({ height: Number(b.number), type: 'block' });
  }

  /** What the rollbacks among these log lines said, to tell which path a reorg took. */
  const rollbacks = (entries: LogEntry[]) =>
    entries.filter((e) => e.msg === 'reorg rolled back').map((e) => ({ depth: Number(e.obj.depth), exact: e.obj.exact }));

  beforeAll(async () => {
    [node, followed, reference] = await Promise.all([startTestNode(), freshDatabase(engine), freshDatabase(engine)]);
    truth = truthClient(node.url);
    scenario = await deployScenario(node, { holders: 40, nfts: 10 });
    await mine(6, 'base');
    run = await startIndexer(followed.db, node.url, { enrich: true });
    await run.caughtUp();
    api = await startTestApi(engine, { db: followed.db });
  });
  afterAll(async () => {
    await run?.stop();
    await api?.close();
    await Promise.all([followed?.drop(), reference?.drop()]);
    await node?.stop();
  });

  it('notices a branch of the same length at the head (anvil_reorg, depth 1)', async () => {
    await mine(1, 'equal:old');
    const tip = await run.caughtUp();
    const [orphan] = await blocksBetween(tip, tip);
    const mark = run.logger.mark();
    // the new block moves tokens the old one did not, to an address that held nothing
    const sender = scenario.holders[1]!;
    const balance = await truth.readContract({ address: scenario.erc20, abi: contracts.TestERC20.abi, functionName: 'balanceOf', args: [sender], blockNumber: tip - 1n });
    const newcomer = deriveAddress('reorg-newcomer', 0);
    const data = encodeFunctionData({ abi: contracts.TestERC20.abi, functionName: 'transfer', args: [newcomer, balance / 2n] });
    await node.setCoinbase(minersOf('equal:new')[0]!);
    await node.reorg(1, [[{ from: sender, to: scenario.erc20, data }, 0]]);
    expect(await node.public.getBlockNumber()).toBe(tip);

    await expectIndexMatchesChain([orphan!]);
    expect(await truth.readContract({ address: scenario.erc20, abi: contracts.TestERC20.abi, functionName: 'balanceOf', args: [newcomer] })).toBe(balance / 2n);
    expect(rollbacks(mark.since())).toEqual([{ depth: 1, exact: true }]);
  });

  it('notices a shorter branch, 5 deep, whose head stays below our tip', async () => {
    const mark = run.logger.mark();
    const orphans = await replaceBranch(
      async () => {
        await deployBranchToken();
        await mine(1, 'shorter:old');
      },
      () => mine(3, 'shorter:new'),
    );
    expect(orphans).toHaveLength(5);
    expect(await node.public.getBlockNumber()).toBeLessThan(orphans[orphans.length - 1]!.number);
    await expectIndexMatchesChain(orphans);
    expect(rollbacks(mark.since())).toEqual([{ depth: 5, exact: true }]);
  });

  it('rolls back a longer branch met as a broken link, 64 deep (the default window), exactly from recorded deltas', async () => {
    const mark = run.logger.mark();
    const orphans = await replaceBranch(
      () => mine(64, 'longer:old', 10),
      () => mineAtOnce(70, 'longer:new'),
    );
    expect(orphans).toHaveLength(64);
    await expectIndexMatchesChain(orphans);
    expect(rollbacks(mark.since())).toEqual([{ depth: 64, exact: true }]);
  });

  it('resets what a reorg deeper than the recorded changes touched from balanceOf', async () => {
    // a small window: changes are kept for 2 × 4 blocks, so 12 deep is beyond them
    await run.stop();
    run = await startIndexer(followed.db, node.url, { enrich: true, chain: { reorgWindow: 4 } });
    await run.caughtUp();
    const mark = run.logger.mark();
    const orphans = await replaceBranch(
      async () => {
        await deployBranchToken();
        await mine(8, 'deep:old');
      },
      () => mine(12, 'deep:new'),
    );
    expect(orphans).toHaveLength(12);
    await expectIndexMatchesChain(orphans);
    expect(rollbacks(mark.since())).toEqual([{ depth: 12, exact: false }]);
    expect(mark.since().some((e) => e.level === 'error' && e.msg.includes('DEEPER THAN THE RECORDED WINDOW'))).toBe(true);
  });
});
