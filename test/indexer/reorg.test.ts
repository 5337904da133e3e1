/**
 * Reorganisations under an indexer that follows the head (enrichment running beside it, as
 * `explorer start` runs them): branches as long as ours, shorter and
 * longer, 1, 5 and 64 blocks deep (64 is the default window: rolled back exactly from the
 * recorded deltas) and one deeper than a small window (touched balances reset from balanceOf),
 * met by a new indexer after a restart that falls between the node's reorg and its detection.
 * After each, the index must equal a fresh index of the final chain and the node's own state:
 * every non-zero balance, every token's holder count (a token nobody holds any more included,
 * and no token only the orphaned blocks knew), the consensus blocks, and the `addresses` rows
 * (those a fresh index has with the same contract and proxy facts, the others with the node's
 * facts); the orphaned blocks must stay, served as type "reorg" to their miners.
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
  enrichmentDone,
  indexAndEnrich,
  startIndexer,
  type LogEntry,
  type RunningIndexer,
} from '../support/indexer-harness.js';
import {
  hasCodeAt,
  indexedAddresses,
  indexedState,
  nodeState,
  servedBlocksValidated,
  sortedEntries,
  truthClient,
  type IndexedState,
} from '../support/ground-truth.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

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

  /** A token that exists only on the branch about to be orphaned: it must leave the index with it. */
  const deployBranchToken = async (): Promise<Hex> => {
    const { address } = await node.deploy(contracts.TestERC20, ['Doomed', 'DOOM', 18]);
    for (const holder of scenario.holders.slice(0, 3)) {
      await node.write({ address, abi: contracts.TestERC20.abi, functionName: 'mint', args: [holder, 10n ** 18n] });
    }
    return address.toLowerCase() as Hex;
  };

  /**
   * `inexact`: a rollback deeper than the recorded window, after which the transfer counts of the
   * tokens it touched are not known (null), and every other count is still the node's.
   */
  async function expectIndexMatchesChain(orphans: readonly ChainBlock[], { inexact = false } = {}): Promise<IndexedState> {
    const head = await run.caughtUp({ node: node.url });
    expect(run.logger.find('failed')).toEqual([]);
    await enrichmentDone(followed.db);
    const ours = await indexedState(followed.db, CHAIN);
    const ourAddresses = await indexedAddresses(followed.db, CHAIN);

    // the same as indexing the final chain from scratch, enrichment included
    await emptyDatabase(reference.db);
    await indexAndEnrich(reference.db, node.url);
    const fresh = await indexedState(reference.db, CHAIN);
    expect(sortedEntries(ours.blocks)).toEqual(sortedEntries(fresh.blocks));
    expect(sortedEntries(ours.balances)).toEqual(sortedEntries(fresh.balances));
    expect(sortedEntries(ours.holderCounts)).toEqual(sortedEntries(fresh.holderCounts));
    expect(sortedEntries(ours.heldSupplies)).toEqual(sortedEntries(fresh.heldSupplies));
    // every address a fresh index knows, with its facts; the rest (miners and holders only the
    // orphaned blocks had) with the node's: no code at the head, so no contract and no proxy
    const freshAddresses = await indexedAddresses(reference.db, CHAIN);
    expect(sortedEntries(new Map([...ourAddresses].filter(([a]) => freshAddresses.has(a))))).toEqual(sortedEntries(freshAddresses));
    const onlyOurs = [...ourAddresses.keys()].filter((a) => !freshAddresses.has(a));
    const code = await hasCodeAt(truth, onlyOurs, head);
    expect(sortedEntries(new Map(onlyOurs.map((a) => [a, ourAddresses.get(a)])))).toEqual(
      sortedEntries(new Map(onlyOurs.map((a) => [a, { isContract: code.get(a), proxyType: null, implementations: '[]' }]))),
    );

    // ... and what the node itself says
    const chain = await blocksBetween(0n, head);
    const said = await nodeState(truth, head, [scenario.weth]);
    expect(sortedEntries(ours.blocks)).toEqual(sortedEntries(said.blocks));
    // each token's transfers: every Transfer, TransferSingle, TransferBatch, Deposit and Withdrawal of the branch, none of the orphans'
    expect(sortedEntries(fresh.transferCounts)).toEqual(sortedEntries(said.transferCounts));
    expect(said.transferCounts.size).toBeGreaterThan(3);
    if (inexact) {
      const known = new Map([...ours.transferCounts].filter(([, n]) => n !== null));
      expect(known.size).toBeLessThan(ours.transferCounts.size);
      expect(sortedEntries(known)).toEqual(sortedEntries(new Map([...said.transferCounts].filter(([t]) => known.has(t)))));
    } else {
      expect(sortedEntries(ours.transferCounts)).toEqual(sortedEntries(said.transferCounts));
    }
    expect(sortedEntries(ours.balances)).toEqual(sortedEntries(said.balances));
    expect(sortedEntries(ours.holderCounts)).toEqual(sortedEntries(said.holderCounts));
    // the supply the token object serves: every mint and burn of the branch kept, none of the orphans'
    expect(sortedEntries(ours.heldSupplies)).toEqual(sortedEntries(said.heldSupplies));

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
    return ours;
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
  }, 300_000);
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
    // a token held before the fork whose holders all burn everything on the new branch: it
    // stays, with 0 holders, as in a fresh index
    const { address } = await node.deploy(contracts.TestERC20, ['Fading', 'FADE', 18]);
    const fading = address.toLowerCase() as Hex;
    const fadingHolders = scenario.holders.slice(3, 5);
    for (const holder of fadingHolders) await node.write({ address, abi: contracts.TestERC20.abi, functionName: 'mint', args: [holder, 10n ** 18n] });
    await run.caughtUp();
    const mark = run.logger.mark();
    let doomed: Hex | undefined;
    const orphans = await replaceBranch(
      async () => {
        doomed = await deployBranchToken();
        await mine(1, 'shorter:old');
      },
      async () => {
        for (const holder of fadingHolders) await node.write({ address, abi: contracts.TestERC20.abi, functionName: 'burn', args: [holder, 10n ** 18n] });
        await mine(1, 'shorter:new');
      },
    );
    expect(orphans).toHaveLength(5);
    expect(await node.public.getBlockNumber()).toBeLessThan(orphans[orphans.length - 1]!.number);
    const state = await expectIndexMatchesChain(orphans);
    expect(rollbacks(mark.since())).toEqual([{ depth: 5, exact: true }]);
    expect(state.holderCounts.get(fading)).toBe(0);
    expect(state.holderCounts.has(doomed!)).toBe(false);
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

  it('resets what a reorg deeper than the recorded changes touched from balanceOf, met by a new indexer after a restart between the reorg and its detection', async () => {
    // a small window: changes are kept for 2 × 4 blocks, so 14 deep is beyond them. The indexer
    // reaches the node through a TCP relay the test can cut, so the node can switch branches
    // under a running indexer that cannot see it.
    const relay = await startTcpProxy(Number(new URL(node.url).port));
    const relayUrl = `http://127.0.0.1:${relay.port}`;
    const deepWindow = { enrich: true, chain: { reorgWindow: 4 } };
    try {
      await run.stop();
      const before = await startIndexer(followed.db, relayUrl, deepWindow);
      run = before;
      await run.caughtUp({ node: node.url });
      // a token whose only transfers on the orphaned branch move no balance (a self-transfer and
      // one of 0): its count cannot be put right from balances, so it must be unknown (review)
      const { address: quietAddress } = await node.deploy(contracts.TestERC20, ['Quiet', 'QUIET', 18]);
      const quiet = quietAddress.toLowerCase() as Hex;
      const quietHolder = scenario.holders[2]!;
      await node.write({ address: quietAddress, abi: contracts.TestERC20.abi, functionName: 'mint', args: [quietHolder, 10n ** 18n] });
      await run.caughtUp({ node: node.url });
      const base = await node.public.getBlockNumber();
      const snapshot = await node.snapshot();
      const doomed = await deployBranchToken();
      for (const amount of [10n ** 17n, 0n]) {
        const data = encodeFunctionData({ abi: contracts.TestERC20.abi, functionName: 'transfer', args: [quietHolder, amount] });
        await node.sendTransaction({ from: quietHolder, to: quietAddress, data });
      }
      await mine(8, 'deep:old');
      const tip = await run.caughtUp({ node: node.url });
      const orphans = await blocksBetween(base + 1n, tip);
      expect(orphans).toHaveLength(14);

      // the node reorganises while the indexer runs blind, and the indexer is restarted before
      // it could have seen it: the old branch is indexed, the node is on the new one
      relay.cut();
      expect(await node.revert(snapshot)).toBe(true);
      await mine(14, 'deep:new');
      expect((await truth.getBlock({ blockNumber: tip })).hash).not.toBe(orphans[orphans.length - 1]!.hash);
      await before.stop();
      expect(rollbacks(before.logger.entries)).toEqual([]);
      relay.restore();

      // a new indexer with nothing in memory meets the reorg in the database it resumes from
      run = await startIndexer(followed.db, relayUrl, deepWindow);
      const state = await expectIndexMatchesChain(orphans, { inexact: true });
      expect(run.logger.entries.find((e) => e.msg === 'resuming')?.obj.from).toBe((tip + 1n).toString());
      expect(rollbacks(run.logger.entries)).toEqual([{ depth: 14, exact: false }]);
      expect(run.logger.entries.some((e) => e.level === 'error' && e.msg.includes('DEEPER THAN THE RECORDED WINDOW'))).toBe(true);
      expect(state.holderCounts.has(doomed)).toBe(false);
      expect(state.transferCounts.get(quiet)).toBeNull();
    } finally {
      relay.restore();
      await relay.close();
    }
  });
});
