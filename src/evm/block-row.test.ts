/**
 * Checked against real chain data (../shared/fixtures/real, README "Check values"): headers and
 * receipt lists whose hashes and roots were verified, and Otterscan's independent fee totals.
 */
import { describe, expect, it } from 'vitest';
import { fixtureResult } from '../../test/support/replay-rpc.js';
import { gasTargetPercentage, gasUsedPercentage, burntFeesPercentage } from '../api/views/block-percentages.js';
import { blockHeaderFields, blockRewards, buildBlockRow, computeBlockFees } from './block-row.js';
import { InconsistentChainDataError } from '../rpc/errors.js';
import type { RpcBlock, RpcReceipt, RpcTraceBlockEntry, RpcTransaction } from '../rpc/types.js';
import { summarizeTraceBlock } from './traces.js';
import {
  MINER,
  MINTED_BLOCK_REWARD,
  STAND_IN_GAS_PRICE,
  UNCLE_HASH,
  UNCLE_REWARD,
  recordedBlock,
  recordedTraces,
  standInFees,
  standInFullBlock,
  standInReceipts,
} from '../../test/support/block-508110.js';

const ETH = 10n ** 18n;
const mainnet = (file: string) => `ethereum-mainnet/${file}`;

function block18M() {
  return {
    block: fixtureResult<RpcBlock>(mainnet('block-18000000.eth_getBlockByNumber.full.json')),
    receipts: fixtureResult<RpcReceipt[]>(mainnet('block-18000000.eth_getBlockReceipts.json')),
  };
}

function block17M() {
  return {
    block: fixtureResult<RpcBlock>(mainnet('blocks-17000000-17000001.eth_getBlockByHash.full.batch.json'), 0),
    receipts: fixtureResult<RpcReceipt[]>(mainnet('block-17000000.erigon_getBlockReceiptsByBlockHash.json')),
  };
}

interface OtsDetails {
  block: RpcBlock & { transactionCount: number };
  issuance: { blockReward: string };
  totalFees: string;
}

/** 15,000,000 is recorded as an Otterscan header (no transaction list) plus all its receipts. */
function block15M() {
  const details = fixtureResult<OtsDetails>(mainnet('block-15000000.ots_getBlockDetailsByHash.json'));
  const receipts = fixtureResult<RpcReceipt[]>(mainnet('block-15000000.erigon_getBlockReceiptsByBlockHash.json'));
  // The hash-only transaction list a node returns for eth_getBlockByHash(hash, false).
  const block: RpcBlock = { ...details.block, transactions: receipts.map((r) => r.transactionHash) };
  return { block, receipts, details };
}

describe('buildBlockRow on Ethereum mainnet', () => {
  it('18,000,000 (post-Shanghai) reproduces the check values', () => {
    const { block, receipts } = block18M();
    const row = buildBlockRow(block, receipts, null, { chainId: 1 });
    expect(row.transactionFees).toBe(383604366542520501n);
    expect(row.burntFees).toBe(352907159041663251n);
    expect(row.priorityFee).toBe(30697207500857250n);
    expect(row.priorityFee).toBe(row.transactionFees - row.burntFees);
    expect(row.gasUsed).toBe(16_247_211n);
    expect(gasUsedPercentage(row.gasUsed, row.gasLimit)).toBeCloseTo(54.15737, 5);
    expect(gasTargetPercentage(row.gasUsed, row.gasLimit)).toBeCloseTo(8.31474, 5);
    expect(row).toMatchObject({
      chainId: 1,
      number: 18_000_000n,
      hash: '0x95b198e154acbfc64109dfd22d8224fe927fd8dfdedfae01587674482ba4baf3',
      miner: '0xdafea492d9c6733ae3d56b7ed1adb60692c98bc5',
      nonce: '0x0000000000000000',
      transactionsCount: 94,
      withdrawalsCount: 16,
      totalDifficulty: null,
      difficulty: 0n,
      uncleHashes: [],
      internalTransactionsCount: null,
      consensus: true,
      isUncle: false,
    });
    // After the merge there is no reward trace: one validator entry equal to the priority fee.
    expect(row.rewards).toEqual([
      { type: 'validator', reward: 30697207500857250n, address: '0xdafea492d9c6733ae3d56b7ed1adb60692c98bc5' },
    ]);
  });

  it('17,000,000 (post-merge, pre-Shanghai) reproduces the check values', () => {
    const { block, receipts } = block17M();
    const row = buildBlockRow(block, receipts, null, { chainId: 1 });
    expect(row.transactionFees).toBe(220872919006082422n);
    expect(row.burntFees).toBe(188553901813954314n);
    expect(row.priorityFee).toBe(32319017192128108n);
    expect(row.gasUsed).toBe(9_160_778n);
    expect(row.transactionsCount).toBe(102);
    expect(row.withdrawalsCount).toBeNull();
    expect(row.miner.startsWith('0x690b9a9e')).toBe(true);
    expect(gasUsedPercentage(row.gasUsed, row.gasLimit)).toBeCloseTo(30.535927, 6);
    expect(gasTargetPercentage(row.gasUsed, row.gasLimit)).toBeCloseTo(-38.928147, 6);
  });

  it('15,000,000 (London, proof of work) matches the check values and Otterscan’s totalFees', () => {
    const { block, receipts, details } = block15M();
    const row = buildBlockRow(block, receipts, null, { chainId: 1 });
    expect(row.transactionFees).toBe(628210921875033847n);
    expect(row.transactionFees).toBe(BigInt(details.totalFees));
    expect(row.burntFees).toBe(424677351860501288n);
    expect(row.priorityFee).toBe(203533570014532559n);
    expect(row.transactionsCount).toBe(details.block.transactionCount);
    expect(row.miner.startsWith('0xea674fdd')).toBe(true);
    expect(row.nonce).toBe('0xa0ba23490d99d85c');
    expect(gasUsedPercentage(row.gasUsed, row.gasLimit)).toBeCloseTo(99.996007, 6);
    expect(gasTargetPercentage(row.gasUsed, row.gasLimit)).toBeCloseTo(99.992013, 6);
    expect(burntFeesPercentage(row.burntFees, row.transactionFees)).toBeCloseTo((Number(424677351860501288n) / Number(628210921875033847n)) * 100, 10);
  });

  it('15,000,000 (proof of work with a base fee): the miner’s reward is the minted 2 ETH plus fees less the burnt part', () => {
    const { block, receipts, details } = block15M();
    // The trace reward of this block is not recorded; Otterscan’s recorded issuance is the same
    // number (what the protocol minted for the miner).
    const minted = BigInt(details.issuance.blockReward);
    expect(minted).toBe(2n * ETH);
    const miner = blockHeaderFields(block).miner;
    const row = buildBlockRow(block, receipts, { rewards: [{ type: 'validator', reward: minted, address: miner }], internalTransactionsCount: 0 }, { chainId: 1 });
    expect(row.rewards).toEqual([{ type: 'validator', reward: 2n * ETH + 628210921875033847n - 424677351860501288n, address: miner }]);
    expect(row.rewards[0]!.reward).toBe(2n * ETH + row.priorityFee);
  });

  it('a block that names no miner (null or absent: some rollups) is the zero address’s, not a block to refuse', () => {
    const { block } = block18M();
    const zero = `0x${'0'.repeat(40)}`;
    expect(blockHeaderFields({ ...block, miner: null } as never).miner).toBe(zero);
    const { miner: _dropped, ...withoutMiner } = block;
    expect(blockHeaderFields(withoutMiner as never).miner).toBe(zero);
    expect(blockHeaderFields(block).miner).toBe(block.miner!.toLowerCase());
  });

  it('refuses receipts that are not exactly the block’s', () => {
    const { block, receipts } = block18M();
    expect(() => computeBlockFees(block, receipts.slice(1))).toThrow(InconsistentChainDataError);
    const other = block17M().receipts.slice(0, receipts.length);
    expect(() => computeBlockFees(block, other)).toThrow(InconsistentChainDataError);
  });
});

describe('buildBlockRow on Arbitrum Sepolia', () => {
  const block = fixtureResult<RpcBlock>('arbitrum-sepolia/block-185232421.eth_getBlockByNumber.full.json');
  const receipts = fixtureResult<RpcReceipt[]>('arbitrum-sepolia/block-185232421.eth_getBlockReceipts.json');

  it('185,232,421: fees = burnt, no priority fee', () => {
    const row = buildBlockRow(block, receipts, null, { chainId: 421614 });
    expect(row.transactionFees).toBe(97_735_000_000_000n);
    expect(row.burntFees).toBe(97_735_000_000_000n);
    expect(row.priorityFee).toBe(0n);
    expect(row.gasUsed).toBe(977_350n);
    expect(row.nonce).toBe('0x00000000001b4ee7');
    expect(row.miner).toBe('0xa4b000000000000000000073657175656e636572');
    expect(row.rewards).toEqual([{ type: 'validator', reward: 0n, address: row.miner }]);
  });

  it('genesis: an empty block', () => {
    const genesis = fixtureResult<RpcBlock>('arbitrum-sepolia/block-0.eth_getBlockByNumber.full.json');
    const row = buildBlockRow(genesis, [], null, { chainId: 421614 });
    expect(row).toMatchObject({ transactionFees: 0n, burntFees: 0n, priorityFee: 0n, transactionsCount: 0 });
    expect(burntFeesPercentage(row.burntFees, row.transactionFees)).toBeNull();
    expect(gasTargetPercentage(row.gasUsed, row.gasLimit)).toBe(-100);
  });
});

describe('block 508,110 (Frontier, Parity node) with its trace_block', () => {
  const block = recordedBlock();
  const traces = recordedTraces();

  it('header fields', () => {
    expect(blockHeaderFields(block)).toMatchObject({
      number: 508_110n,
      hash: '0xc881ee96ddf8b5be74d7680ccda437466b14b9d942aa0161f139fe920690f665',
      miner: MINER,
      nonce: '0xc61808763f2b074b',
      baseFeePerGas: null,
      totalDifficulty: 0x263d38d808087cecn,
      transactionsCount: 2,
      withdrawalsCount: null,
      uncleHashes: [UNCLE_HASH],
    });
  });

  it('rewards come from the trace: 5.15625 ETH block reward and 3.75 ETH uncle reward, plus the fees for the miner', () => {
    const summary = summarizeTraceBlock(traces);
    expect(blockRewards(summary.rewards, MINER, { transactionFees: 0n, burntFees: 0n, priorityFee: 0n })).toEqual([
      { type: 'validator', reward: MINTED_BLOCK_REWARD, address: MINER },
      { type: 'uncle', reward: UNCLE_REWARD, address: MINER },
    ]);
    // Its two transactions are one contract creation (counts) and one plain call (does not).
    expect(summary.internalTransactionsCount).toBe(1);
  });

  it('a full row: the miner’s validator entry adds the block’s fees, the uncle entry is the trace’s', () => {
    // STAND-IN receipts and transactions (test/support/block-508110.ts): their gas used is derived
    // from the recording, their gas price is not recorded and made up.
    const row = buildBlockRow(standInFullBlock(), standInReceipts(), summarizeTraceBlock(traces), { chainId: 1 });
    expect(row.transactionFees).toBe(729_461n * STAND_IN_GAS_PRICE);
    expect(row.transactionFees).toBe(standInFees());
    expect(row.burntFees).toBe(0n);
    expect(row.rewards).toEqual([
      { type: 'validator', reward: MINTED_BLOCK_REWARD + row.transactionFees, address: MINER },
      { type: 'uncle', reward: UNCLE_REWARD, address: MINER },
    ]);
  });

  it('a full row needs the receipts of both transactions', () => {
    expect(() => buildBlockRow(block, [], summarizeTraceBlock(traces), { chainId: 1 })).toThrow(InconsistentChainDataError);
  });
});

describe('EIP-4844 header fields', () => {
  const GAS_PER_BLOB = 131_072n;

  it('19,900,000 (Cancun): blob gas and excess from the header, type-3 count from the transactions', () => {
    const block = fixtureResult<RpcBlock>(mainnet('block-19900000.eth_getBlockByNumber.full.json'));
    const header = blockHeaderFields(block);
    expect(header.blobGasUsed).toBe(BigInt(block.blobGasUsed!));
    expect(header.excessBlobGas).toBe(BigInt(block.excessBlobGas!));
    const blobTransactions = block.transactions.filter((tx) => typeof tx === 'object' && tx.type === '0x3');
    expect(blobTransactions.length).toBeGreaterThan(0);
    expect(header.blobTransactionsCount).toBe(blobTransactions.length);
    // independent of the count: the header's blob gas is what the type-3 transactions' blobs use
    const blobs = blobTransactions.reduce((n, tx) => n + ((tx as RpcTransaction).blobVersionedHashes as unknown[]).length, 0);
    expect(header.blobGasUsed).toBe(BigInt(blobs) * GAS_PER_BLOB);
  });

  it('18,000,000 (Shanghai) and an Arbitrum block: no blob fields, no blob transactions', () => {
    const arbitrum = fixtureResult<RpcBlock>('arbitrum-sepolia/block-185232421.eth_getBlockByNumber.full.json');
    for (const block of [block18M().block, arbitrum]) {
      expect(blockHeaderFields(block)).toMatchObject({ blobGasUsed: null, excessBlobGas: null, blobTransactionsCount: 0 });
    }
  });

  it('a hash-only transaction list leaves the count unknown', () => {
    const block = fixtureResult<RpcBlock>(mainnet('block-19665755.eth_getBlockByNumber.hashes.json'));
    expect(blockHeaderFields(block)).toMatchObject({ blobTransactionsCount: null, blobGasUsed: BigInt(block.blobGasUsed!) });
  });
});

describe('the recorded reward traces of proof-of-work blocks (ethereum-mainnet-rewards)', () => {
  const miner = (entries: RpcTraceBlockEntry[]) => summarizeTraceBlock(entries).rewards![0]!.address;
  const fees = { transactionFees: 3n * ETH, burntFees: ETH, priorityFee: 0n };

  it.each([2_000_010, 4_417_196, 6_452_018, 15_534_838, 15_537_393])('%i: the miner’s entry gains fees − burnt, the uncle entries nothing', (n) => {
    const entries = fixtureResult<RpcTraceBlockEntry[]>(`ethereum-mainnet-rewards/trace_block-${n}.json`);
    const fromTrace = summarizeTraceBlock(entries).rewards!;
    const rewards = blockRewards(fromTrace, miner(entries), fees);
    expect(rewards.map((r) => r.type)).toEqual(fromTrace.map((r) => r.type));
    rewards.forEach((r, i) => expect(r.reward - fromTrace[i]!.reward).toBe(r.type === 'validator' ? 2n * ETH : 0n));
  });

  it('15,538,011 (after the merge): no trace rewards, the priority fee as before', () => {
    const entries = fixtureResult<RpcTraceBlockEntry[]>('ethereum-mainnet-rewards/trace_block-15538011.json');
    const m = '0x0000000000000000000000000000000000000001' as const;
    expect(blockRewards(summarizeTraceBlock(entries).rewards, m, { ...fees, priorityFee: 7n })).toEqual([{ type: 'validator', reward: 7n, address: m }]);
  });
});

// op-geth, Scroll and Mantle name a transaction's data fee on the parent chain `l1Fee` in its
// receipt. No such node runs here (anvil's optimism mode leaves it out), so the field is added to
// recorded mainnet receipts; test/indexer/op-stack-fees.test.ts checks the rest on a real node.
describe('a rollup data fee in the receipts (l1Fee, added to recorded receipts)', () => {
  it('is part of what the transactions paid, and not of the base fee, the tips or the miner’s income from gas', () => {
    const { block, receipts } = block18M();
    const plain = computeBlockFees(block, receipts);
    const withDataFee = computeBlockFees(block, receipts.map((r) => ({ ...r, l1Fee: '0x1d1a94a20000' })));
    expect(withDataFee.transactionFees).toBe(plain.transactionFees + 32_000_000_000_000n * BigInt(receipts.length));
    expect(withDataFee.burntFees).toBe(plain.burntFees);
    expect(withDataFee.priorityFee).toBe(plain.priorityFee);
    const minted = [{ type: 'validator' as const, reward: 2n * ETH, address: lowerMiner(block) }];
    expect(blockRewards(minted, lowerMiner(block), withDataFee)).toEqual(blockRewards(minted, lowerMiner(block), plain));
    const row = buildBlockRow(block, receipts.map((r) => ({ ...r, l1Fee: '0x1d1a94a20000' })), null, { chainId: 1 });
    expect(row.transactionFees).toBe(withDataFee.transactionFees);
    expect(row).not.toHaveProperty('parentChainFees');
  });
});

function lowerMiner(block: RpcBlock): `0x${string}` {
  return (block.miner ?? '0x').toLowerCase() as `0x${string}`;
}
