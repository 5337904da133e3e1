import { parseAbiItem } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contracts } from '../../src/devnet/artifacts.js';
import { generateBulk, type BulkResult } from '../../src/devnet/bulk.js';
import { startTestNode, type TestNode } from '../support/anvil.js';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

describe('bulk generator', () => {
  let node: TestNode;
  let result: BulkResult;

  beforeAll(async () => {
    node = await startTestNode();
    result = await generateBulk(node, { transfers: 2_000, tokens: 6, holders: 400, transfersPerTx: 100, txsPerBlock: 5, seed: 7 });
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('emits exactly the requested number of Transfer events', async () => {
    expect(result.transfers).toBe(2_000);
    expect(result.mints).toBe(400);
    expect(result.tokens).toHaveLength(6);
    expect(result.holders).toHaveLength(400);
    const logs = await node.public.getLogs({ event: TRANSFER, fromBlock: result.fromBlock, toBlock: result.toBlock });
    expect(logs).toHaveLength(2_000);
    for (const token of result.tokens) {
      expect(logs.filter((l) => l.address.toLowerCase() === token.address.toLowerCase())).toHaveLength(token.transfers);
    }
    expect(logs.filter((l) => l.args.from === '0x0000000000000000000000000000000000000000')).toHaveLength(400);
  });

  it('packs many transfers per transaction and many transactions per block', async () => {
    const blocks = Number(result.toBlock - result.fromBlock) + 1;
    expect(result.transactions).toBeLessThan(40);
    const busiest = await node.public.getBlock({ blockNumber: result.fromBlock + 2n });
    expect(busiest.transactions.length).toBeGreaterThan(1);
    expect(blocks).toBeLessThan(result.transactions);
  });

  it('every holder holds something and the simulated balances match the chain', async () => {
    const holding = new Set<string>();
    for (const m of result.balances.values()) for (const h of m.keys()) holding.add(h);
    expect(holding.size).toBeGreaterThan(300);
    for (const token of result.tokens) {
      const balances = result.balances.get(token.address)!;
      expect(balances.size).toBe(token.holders);
      const sample = [...balances.entries()].slice(0, 15);
      for (const [holder, amount] of sample) {
        expect(await node.public.readContract({ address: token.address, abi: contracts.AirdropToken.abi, functionName: 'balanceOf', args: [holder] })).toBe(amount);
      }
      const total = [...balances.values()].reduce((a, b) => a + b, 0n);
      expect(await node.public.readContract({ address: token.address, abi: contracts.AirdropToken.abi, functionName: 'totalSupply' })).toBe(total);
    }
  });

  it('is deterministic for a seed and leaves automine as it was', async () => {
    expect(await node.getAutomine()).toBe(true);
    const other = await startTestNode();
    try {
      const again = await generateBulk(other, { transfers: 2_000, tokens: 6, holders: 400, transfersPerTx: 100, txsPerBlock: 5, seed: 7 });
      expect(again.tokens).toEqual(result.tokens);
      expect(again.balances).toEqual(result.balances);
    } finally {
      await other.stop();
    }
  });

  it('rejects impossible shapes', async () => {
    await expect(generateBulk(node, { transfers: 10, tokens: 2, holders: 20 })).rejects.toThrow(/transfers must be/);
    await expect(generateBulk(node, { transfers: 100, tokens: 20, holders: 10 })).rejects.toThrow(/holders must be/);
  });
});
