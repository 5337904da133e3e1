import { parseAbiItem, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contracts } from '../../src/devnet/artifacts.js';
import { deployScenario, generateActivity, waitForBlocks, type DemoScenario } from '../../src/devnet/scenario.js';
import { startTestNode, type TestNode } from '../support/anvil.js';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

describe('demo scenario', () => {
  let node: TestNode;
  let scenario: DemoScenario;

  beforeAll(async () => {
    node = await startTestNode();
    scenario = await deployScenario(node, { holders: 200 });
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('deploys every demo contract', async () => {
    for (const address of [scenario.erc20, scenario.erc721, scenario.erc1155, scenario.weth, scenario.clone, scenario.proxy]) {
      expect((await node.public.getCode({ address }))?.length ?? 0).toBeGreaterThan(2);
    }
    const cloneCode = (await node.public.getCode({ address: scenario.clone })) as Hex;
    expect(cloneCode.startsWith('0x363d3d373d3d3d363d73')).toBe(true);
    expect(await node.public.readContract({ address: scenario.proxy, abi: contracts.InitializableERC20.abi, functionName: 'symbol' })).toBe('PRXY');
    expect(await node.public.readContract({ address: scenario.clone, abi: contracts.InitializableERC20.abi, functionName: 'symbol' })).toBe('CLONE');
  });

  it('gives the ERC-20 a skewed holder distribution', async () => {
    const balances = await Promise.all(
      scenario.holders.map((h) =>
        node.public.readContract({ address: scenario.erc20, abi: contracts.TestERC20.abi, functionName: 'balanceOf', args: [h] }),
      ),
    );
    expect(balances.every((b) => b > 0n)).toBe(true);
    const sorted = [...balances].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
    const total = sorted.reduce((a, b) => a + b, 0n);
    const top10pct = sorted.slice(0, sorted.length / 10).reduce((a, b) => a + b, 0n);
    // Pareto with alpha ≈ 1.16: the top tenth holds far more than a tenth.
    expect(Number((top10pct * 100n) / total)).toBeGreaterThan(40);
    expect(await node.public.readContract({ address: scenario.erc20, abi: contracts.TestERC20.abi, functionName: 'totalSupply' })).toBe(total);
  });

  it('generates blocks with transfers from several miners, then stops', async () => {
    const start = await node.public.getBlockNumber();
    const seen: { number: bigint; miner: Address }[] = [];
    const activity = generateActivity(node, scenario, { blocksPerSecond: 50, miners: 4, onBlock: (b) => seen.push(b) });
    await waitForBlocks(activity, 25);
    const stats = await activity.stop();
    expect(stats.blocks).toBeGreaterThanOrEqual(25);
    expect(stats.reverted).toBe(0);
    expect(stats.transactions).toBeGreaterThan(stats.blocks);
    expect(activity.miners).toHaveLength(4);
    expect(stats.blocksByMiner.size).toBeGreaterThanOrEqual(2);

    const end = await node.public.getBlockNumber();
    expect(end - start).toBe(BigInt(stats.blocks));
    const miners = new Set<string>();
    for (let n = start + 1n; n <= end; n++) miners.add((await node.public.getBlock({ blockNumber: n })).miner.toLowerCase());
    expect([...miners].every((m) => activity.miners.some((a) => a.toLowerCase() === m))).toBe(true);
    expect(miners.size).toBeGreaterThanOrEqual(2);

    const transfers = await node.public.getLogs({ event: TRANSFER, fromBlock: start + 1n, toBlock: end });
    expect(transfers.length).toBeGreaterThan(0);
    // Automine is restored, so later tests (and the demo's own setup) see the node as before.
    expect(await node.getAutomine()).toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    expect(await node.public.getBlockNumber()).toBe(end);
  });
});
