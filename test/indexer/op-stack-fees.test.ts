/**
 * Fees of a block on an OP-stack chain, against what the node's state says was paid: anvil in
 * optimism mode, a deposit transaction (type 0x7e: it pays no gas on L2, yet its gas is in the
 * block's gasUsed) beside an ordinary EIP-1559 transfer with a tip. What the sender paid (its
 * balance before and after, less the value) is the transaction fees; what reached the coinbase is
 * the priority fee; the rest is the base fee (`burnt_fees`). The block's gas × the base fee, the
 * formula before (OP-stack review), counted the deposit's gas too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializeTransaction } from 'viem/op-stack';
import type { Address, Hex } from 'viem';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { buildBlockRow } from '../../src/evm/block-row.js';
import type { RpcBlock, RpcReceipt } from '../../src/rpc/types.js';

const COINBASE: Address = '0x4200000000000000000000000000000000000011';
const DEPOSITOR: Address = '0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001';

describe('an OP-stack block with a deposit transaction (anvil --optimism)', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode({ noMining: true, args: ['--optimism'] });
    await node.setCoinbase(COINBASE);
    await node.mine(1);
  }, 60_000);
  afterAll(async () => {
    await node?.stop();
  });

  it('transaction fees are what the sender paid, the priority fee what the coinbase got, burnt the base fee on the gas that paid it', async () => {
    const sender = node.accounts[0]!;
    const recipient: Address = '0x00000000000000000000000000000000000c0ffe';
    const value = 10n ** 15n;
    const deposit = serializeTransaction({
      type: 'deposit',
      sourceHash: `0x${'00'.repeat(31)}07`,
      from: DEPOSITOR,
      to: recipient,
      mint: 0n,
      value: 0n,
      gas: 1_000_000n,
      isSystemTx: false,
      data: `0x${'ab'.repeat(400)}`,
    });
    await node.request('eth_sendRawTransaction', [deposit]);
    await node.request('eth_sendTransaction', [{ from: sender, to: recipient, value: `0x${value.toString(16)}`, maxPriorityFeePerGas: '0x3b9aca00' }]);
    const before = await node.public.getBlockNumber();
    await node.mine(1);
    const number = before + 1n;
    const tag = `0x${number.toString(16)}`;
    const block = await node.request<RpcBlock>('eth_getBlockByNumber', [tag, true]);
    const receipts = await node.request<RpcReceipt[]>('eth_getBlockReceipts', [tag]);
    const types = block.transactions.map((tx) => (typeof tx === 'string' ? null : tx.type?.toLowerCase()));
    expect(types).toContain('0x7e');
    expect(receipts).toHaveLength(2);
    const depositGas = receipts.filter((_, i) => types[i] === '0x7e').reduce((sum, r) => sum + BigInt(r.gasUsed), 0n);
    expect(depositGas).toBeGreaterThan(21_000n);

    const balance = (address: Address, at: bigint) => node.public.getBalance({ address, blockNumber: at });
    const paid = (await balance(sender, before)) - (await balance(sender, number)) - value;
    const tips = (await balance(COINBASE, number)) - (await balance(COINBASE, before));
    expect(paid).toBeGreaterThan(0n);
    expect(tips).toBeGreaterThan(0n);

    const row = buildBlockRow(block, receipts, null, { chainId: 31337 });
    expect(row.transactionFees).toBe(paid);
    expect(row.priorityFee).toBe(tips);
    expect(row.burntFees).toBe(paid - tips);
    // the deposit's gas paid no base fee: the block's gas × the base fee is more than was paid
    expect(BigInt(block.gasUsed) * BigInt(block.baseFeePerGas as Hex)).toBeGreaterThan(paid);
    expect(row.rewards).toEqual([{ type: 'validator', reward: tips, address: COINBASE.toLowerCase() }]);
  }, 60_000);
});
