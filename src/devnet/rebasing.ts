/**
 * A rebasing token (contracts/RebasingToken.sol, shaped like stETH) on the devnet, for the tests
 * and the rebasing benchmark: many holders minted in few transactions, transfers among them,
 * and rebases — every balance changes and no event says so.
 */
import { encodeFunctionData, numberToHex, type Address } from 'viem';
import { contracts } from './artifacts.js';
import type { DevnetClient } from './client.js';
import { deriveAddress } from './random.js';

const { abi } = contracts.RebasingToken;
/** gas per first-time holder of mintMany (a new share slot + the Transfer event), with margin */
const GAS_PER_MINT = 40_000n;
const GAS_PER_MOVE = 45_000n;
const GAS_BASE = 100_000n;

export interface RebasingToken {
  address: Address;
  holders: Address[];
}

export interface RebasingTokenOptions {
  holders: number;
  /** minted to each holder; default 1,000 tokens of 18 decimals */
  amount?: bigint;
  /** holders per mintMany transaction; default 1,000 */
  perTx?: number;
  /** transactions per mined block; default 20 */
  txsPerBlock?: number;
  seed?: string;
}

/** Sends every call, mining a block per `perBlock` of them, with automine off meanwhile. */
async function sendInBlocks(client: DevnetClient, calls: ReadonlyArray<{ to: Address; data: `0x${string}`; gas: bigint }>, perBlock: number): Promise<void> {
  const automine = await client.getAutomine();
  await client.setAutomine(false);
  await client.request('evm_setBlockGasLimit', [numberToHex(2_000_000_000n)]);
  try {
    for (let i = 0; i < calls.length; i += perBlock) {
      const hashes: `0x${string}`[] = [];
      for (const call of calls.slice(i, i + perBlock)) {
        hashes.push(await client.sendTransaction({ from: client.accounts[0]!, to: call.to, data: call.data, gas: numberToHex(call.gas) }));
      }
      await client.mine(1);
      for (const hash of hashes) {
        const receipt = await client.waitReceipt(hash);
        if (receipt.status !== 'success') throw new Error(`rebasing token: transaction ${hash} reverted`);
      }
    }
  } finally {
    await client.setAutomine(automine);
  }
}

export async function deployRebasingToken(client: DevnetClient, options: RebasingTokenOptions): Promise<RebasingToken> {
  const { address } = await client.deploy(contracts.RebasingToken, ['Rebasing Ether', 'rETH']);
  const holders = Array.from({ length: options.holders }, (_, i) => deriveAddress(`rebasing-holder:${options.seed ?? ''}`, i));
  const amount = options.amount ?? 1_000n * 10n ** 18n;
  const perTx = options.perTx ?? 1_000;
  const calls = [];
  for (let i = 0; i < holders.length; i += perTx) {
    const chunk = holders.slice(i, i + perTx);
    calls.push({
      to: address,
      data: encodeFunctionData({ abi, functionName: 'mintMany', args: [chunk, amount] }),
      gas: GAS_BASE + GAS_PER_MINT * BigInt(chunk.length),
    });
  }
  await sendInBlocks(client, calls, options.txsPerBlock ?? 20);
  return { address, holders };
}

/** Multiplies every balance by `numerator / denominator`: no event. */
export async function rebase(client: DevnetClient, token: Address, numerator: bigint, denominator: bigint): Promise<void> {
  const total = await client.public.readContract({ address: token, abi, functionName: 'totalSupply' });
  await client.write({ address: token, abi, functionName: 'rebase', args: [(total * numerator) / denominator] });
}

/** Transfers in one transaction (one Transfer event each), mined in one block. */
export async function moveTokens(client: DevnetClient, token: Address, moves: ReadonlyArray<{ from: Address; to: Address; amount: bigint }>): Promise<void> {
  if (moves.length === 0) return;
  const data = encodeFunctionData({
    abi,
    functionName: 'shuffle',
    args: [moves.map((m) => m.from), moves.map((m) => m.to), moves.map((m) => m.amount)],
  });
  await sendInBlocks(client, [{ to: token, data, gas: GAS_BASE + GAS_PER_MOVE * BigInt(moves.length) }], 1);
}

/** `from` sends its whole (rebased) balance to `to`: its event-derived balance goes below zero. */
export async function moveAll(client: DevnetClient, token: Address, from: Address, to: Address): Promise<void> {
  await client.write({ address: token, abi, functionName: 'moveAll', args: [from, to] });
}

export async function balanceOf(client: DevnetClient, token: Address, holder: Address, blockNumber?: bigint): Promise<bigint> {
  return client.public.readContract({ address: token, abi, functionName: 'balanceOf', args: [holder], ...(blockNumber === undefined ? {} : { blockNumber }) });
}
