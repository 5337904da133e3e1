import { describe, expect, it } from 'vitest';
import { parseEther } from 'viem';
import { createRpcClient } from '../../src/rpc/client.js';
import { contracts } from '../../src/devnet/artifacts.js';
import { WrappedNativeTokens } from '../../src/indexer/wrapped-native.js';
import type { Hex } from '../../src/db/rows.js';
import { useTestNode, type TestNode } from '../support/anvil.js';
import { freshDatabase } from '../support/databases.js';
import { indexedState, nodeBalances, sortedEntries } from '../support/ground-truth.js';
import { startIndexer } from '../support/indexer-harness.js';
import { heldSupply } from '../../src/db/queries/token-supply.js';
import { fileURLToPath } from 'node:url';
import { compileSolidityFile } from '../support/solidity.js';

const TOTAL_SUPPLY_ABI = [{ type: 'function', name: 'totalSupply', stateMutability: 'view', inputs: [], outputs: [{ type: 'uint256' }] }] as const;

/** The node's chain indexed into a fresh PGlite database: the token's balances there and on the node at the head, its held supply. */
async function indexedToken(node: TestNode, token: Hex) {
  const database = await freshDatabase('pglite');
  const run = await startIndexer(database.db, node.url);
  try {
    const head = await run.caughtUp();
    const own = (balances: Map<string, bigint>) => sortedEntries(new Map([...balances].filter(([k]) => k.startsWith(token))));
    return {
      head,
      indexed: own((await indexedState(database.db, node.chain.id)).balances),
      truth: own(await nodeBalances(node.public, head)),
      held: await heldSupply(database.db, node.chain.id, token),
    };
  } finally {
    await run.stop();
    await database.drop();
  }
}

describe('wrapped native token detection', () => {
  const node = useTestNode();

  // A lagging backend, or a reorg to a shorter chain, leaves the node without the block the
  // probe asks about: that says nothing about the contract and must not blacklist it.
  it('does not reject a WETH it could not ask at the probed block', async () => {
    const { address } = await node().deploy(contracts.WETH9, []);
    const { transactionHash, blockNumber } = await node().send({ to: address, value: parseEther('1') });
    const rpc = createRpcClient({ chainId: node().chain.id, urls: [node().url], retry: { maxRounds: 1 } });
    const logs = (await rpc.getTransactionReceipt(transactionHash))!.logs;
    const weth = address.toLowerCase();
    const wrapped = new WrappedNativeTokens(rpc);

    // without the block, the contract is judged as it is now (a token: taken) and never rejected
    const stalled = await wrapped.learnFrom(logs, blockNumber + 1_000n).then(
      () => null,
      (e: unknown) => e,
    );
    expect(stalled).toBeNull();
    expect(wrapped.set.has(weth)).toBe(true);
    await wrapped.learnFrom(logs, blockNumber);
    expect(wrapped.set.has(weth)).toBe(true);
  });
});

describe('a wrapper that says each wrap with a Transfer and a Deposit', () => {
  const node = useTestNode();

  // (outside review: such a token's balances were doubled, the Deposit counted beside the Transfer)
  it('is counted once: balances and supply equal balanceOf and totalSupply', async () => {
    const artifact = compileSolidityFile(fileURLToPath(new URL('../support/hostile/DoubleSaidWrap.sol', import.meta.url))).DoubleSaidWrap!;
    const { address } = await node().deploy(artifact, []);
    const wrap = address.toLowerCase() as Hex;
    await node().write({ address, abi: artifact.abi, functionName: 'deposit' as never, args: [] as never, value: parseEther('5'), from: 1 });
    await node().write({ address, abi: artifact.abi, functionName: 'deposit' as never, args: [] as never, value: parseEther('3'), from: 2 });
    await node().write({ address, abi: artifact.abi, functionName: 'withdraw' as never, args: [parseEther('1')] as never, from: 2 });
    const { indexed, truth, held } = await indexedToken(node(), wrap);
    expect(new Set(truth.map(([, v]) => v))).toEqual(new Set([parseEther('5'), parseEther('2')]));
    expect(indexed).toEqual(truth);
    const supply = await node().public.readContract({ address, abi: TOTAL_SUPPLY_ABI, functionName: 'totalSupply' });
    expect(supply).toBe(parseEther('7'));
    expect(held).toBe(supply);
  });
});

describe('on a node without the state of old blocks (a full node, not an archive)', () => {
  // anvil keeps every block and log but the state of the last few blocks only, as a full node does
  const node = useTestNode({ args: ['--prune-history', '4'] });

  it('indexes WETH deposits from far below the head, judging the contract at the latest block', async () => {
    const { address } = await node().deploy(contracts.WETH9, []);
    const weth = address.toLowerCase() as Hex;
    await node().send({ to: address, value: parseEther('3'), from: 1 });
    await node().send({ to: address, value: parseEther('2'), from: 2 });
    await node().mine(200);
    const old = await node().public.getBlockNumber();
    // the node refuses state at the deposit's block, as the indexer will meet it
    await expect(node().public.getCode({ address, blockNumber: old - 150n })).rejects.toThrow();

    const { head, indexed, truth, held } = await indexedToken(node(), weth);
    expect(indexed).toEqual(truth);
    expect(truth).toHaveLength(2);
    // the supply the token object and tokensupply serve follows the deposits: totalSupply() at the head
    const supply = await node().public.readContract({ address, abi: TOTAL_SUPPLY_ABI, functionName: 'totalSupply', blockNumber: head });
    expect(supply).toBe(parseEther('5'));
    expect(held).toBe(supply);
  }, 120_000);
});
