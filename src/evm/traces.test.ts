import { afterEach, describe, expect, it } from 'vitest';
import { fixtureResult, startReplayServer, type ReplayServer, type ReplayServerOptions } from '../../test/support/replay-rpc.js';
import type { Reward } from '../db/model/block.js';
import { createRpcClient } from '../rpc/client.js';
import type { RpcCallFrame, RpcTraceBlockEntry } from '../rpc/types.js';
import { detectTraceMethod, fetchBlockTraceSummary, summarizeCallTraces, summarizeTraceBlock, tracesMismatch } from './traces.js';

const ETH = 10n ** 18n;
const traceFile = (block: number) => `ethereum-mainnet-rewards/trace_block-${block}.json`;
const summaryOf = (block: number) => summarizeTraceBlock(fixtureResult<RpcTraceBlockEntry[]>(traceFile(block)));

// Well-known mining pools. The README abbreviates them; two of its abbreviations have a wrong
// tail ("0x2a65aca4…6226", "0x5a0b54d5…3c4c"), the heads and amounts agree.
const DWARFPOOL = '0x2a65aca4d5fc5b5c859090a6c34d164135398226';
const ETHERMINE = '0xea674fdde714fd979de3edf0f56aa9716b898ec8';
const SPARKPOOL = '0x5a0b54d5dc17e0aadc383d2db43b0a0d3e029c4c';

function expectRewards(rewards: Reward[] | null, expected: [type: string, wei: bigint, address: string][]): void {
  expect(rewards?.map((r) => [r.type, r.reward, r.address])).toEqual(expected);
}

/** The README gives these addresses abbreviated only ("0x68df2536…785a"). */
function expectAbbreviated(address: string | undefined, abbreviated: string): void {
  const [head, tail] = abbreviated.split('…') as [string, string];
  expect(address?.startsWith(head) && address.endsWith(tail)).toBe(true);
}

describe('summarizeTraceBlock on recorded trace_block output (README amounts)', () => {
  it('2,000,010 (Homestead): 5 ETH block reward', () => {
    expectRewards(summaryOf(2_000_010).rewards, [['validator', 5n * ETH, DWARFPOOL]]);
  });

  it('4,417,196 (Byzantium): 3 + 3/32 ETH to the miner, 7/8 × 3 ETH to the uncle miner', () => {
    const summary = summaryOf(4_417_196);
    expectRewards(summary.rewards, [
      ['validator', 3n * ETH + (3n * ETH) / 32n, ETHERMINE],
      ['uncle', (7n * 3n * ETH) / 8n, SPARKPOOL],
    ]);
    expect(summary.rewards?.[0]?.reward).toBe(3_093_750_000_000_000_000n);
    // 34 call traces (16 of them nested) and 1 top-level create: 16 + 1 internal transactions.
    expect(summary.internalTransactionsCount).toBe(17);
  });

  it('6,452,018 (Byzantium): uncle at depth 2 gets 6/8 × 3 ETH', () => {
    const summary = summaryOf(6_452_018);
    const uncleMiner = summary.rewards?.[1]?.address ?? '';
    expectAbbreviated(uncleMiner, '0x68df2536…785a');
    expectRewards(summary.rewards, [
      ['validator', 3_093_750_000_000_000_000n, SPARKPOOL],
      ['uncle', 2_250_000_000_000_000_000n, uncleMiner],
    ]);
    // 82 call traces (40 nested) and 17 creates, all top-level: 40 + 17.
    expect(summary.internalTransactionsCount).toBe(57);
  });

  it('15,534,838 and the terminal PoW block 15,537,393: 2 ETH', () => {
    expectRewards(summaryOf(15_534_838).rewards, [['validator', 2n * ETH, ETHERMINE]]);
    const terminal = summaryOf(15_537_393);
    expectAbbreviated(terminal.rewards?.[0]?.address, '0x829bd824…a830');
    expectRewards(terminal.rewards, [['validator', 2n * ETH, terminal.rewards?.[0]?.address ?? '']]);
    expect(terminal.internalTransactionsCount).toBe(2);
  });

  it('15,538,011 (after the merge): no reward traces', () => {
    expect(summaryOf(15_538_011)).toMatchObject({ rewards: null, internalTransactionsCount: 0 });
  });

  it('sums two uncle rewards of one miner into one entry', () => {
    const uncle = (value: bigint): RpcTraceBlockEntry => ({
      type: 'reward',
      action: { rewardType: 'uncle', author: '0x00000000000000000000000000000000000000AA', value: `0x${value.toString(16)}` },
      traceAddress: [],
    });
    expect(summarizeTraceBlock([uncle(1n), uncle(2n)]).rewards).toEqual([
      { type: 'uncle', reward: 3n, address: '0x00000000000000000000000000000000000000aa' },
    ]);
  });
});

describe('tracesMismatch: an answer that is not the whole of this block', () => {
  it.each([4_417_196, 6_452_018, 15_537_393])('block %i: the recorded answer is its block, a short or foreign one is not', (number) => {
    const entries = fixtureResult<RpcTraceBlockEntry[]>(traceFile(number));
    // the block's own facts, from the recording: every transaction has its top-level trace
    const hash = entries[0]!.blockHash!.toLowerCase() as `0x${string}`;
    const transactions = new Set(entries.filter((e) => e.type !== 'reward').map((e) => e.transactionHash)).size;
    expect(transactions).toBeGreaterThan(0);
    const summary = summarizeTraceBlock(entries);
    expect(summary.transactionTraces).toBe(transactions);
    expect(tracesMismatch(summary, { hash, transactions })).toBeNull();
    // a backend that has not reached the block answers []; one on a sibling names another hash
    expect(tracesMismatch(summarizeTraceBlock([]), { hash, transactions })).toBe(`0 of the block's ${transactions} transactions traced`);
    expect(tracesMismatch(summarizeTraceBlock(entries.slice(1).filter((e) => e.transactionHash !== entries[0]!.transactionHash)), { hash, transactions })).toMatch(/transactions traced/);
    const sibling = `0x${'ab'.repeat(32)}` as const;
    expect(tracesMismatch(summary, { hash: sibling, transactions })).toBe(`traces of block ${hash}, not ${sibling}`);
  });

  it('an empty block, and the callTracer (no hashes), by their count alone', () => {
    expect(tracesMismatch(summarizeTraceBlock([]), { hash: `0x${'01'.repeat(32)}`, transactions: 0 })).toBeNull();
    expect(tracesMismatch(summarizeCallTraces(callTracerOutput), { hash: `0x${'01'.repeat(32)}`, transactions: 3 })).toBeNull();
    expect(tracesMismatch(summarizeCallTraces(callTracerOutput.slice(1)), { hash: `0x${'01'.repeat(32)}`, transactions: 3 })).toMatch(/2 of the block's 3/);
  });
});

// No debug_traceBlockByNumber recording exists in the fixtures; this is geth's callTracer shape.
const callTracerOutput: { txHash: string; result: RpcCallFrame }[] = [
  { txHash: '0x01', result: { type: 'CALL', calls: [{ type: 'STATICCALL' }, { type: 'DELEGATECALL', calls: [{ type: 'CALL' }] }] } },
  { txHash: '0x02', result: { type: 'CREATE2' } },
  { txHash: '0x03', result: { type: 'CALL' } },
];

describe('summarizeCallTraces', () => {
  it('counts nested frames and top-level creations', () => {
    expect(summarizeCallTraces(callTracerOutput)).toMatchObject({ rewards: null, internalTransactionsCount: 4 });
  });

  it('gives an unknown count when a transaction failed to trace', () => {
    expect(summarizeCallTraces([{ txHash: '0x01', error: 'execution timeout' }])).toMatchObject({ rewards: null, internalTransactionsCount: null });
  });
});

describe('fetchBlockTraceSummary against a node', () => {
  const servers: ReplayServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  async function rpcFor(options: ReplayServerOptions) {
    const server = await startReplayServer({ sets: ['ethereum-mainnet-rewards'], ...options });
    servers.push(server);
    return { server, rpc: createRpcClient({ chainId: 1, urls: [server.url], retry: { baseDelayMs: 1, maxDelayMs: 5 } }) };
  }

  it('uses trace_block when the node serves it, probing once', async () => {
    const { server, rpc } = await rpcFor({});
    const summary = await fetchBlockTraceSummary(rpc, 4_417_196n);
    expect(summary?.rewards?.map((r) => r.type)).toEqual(['validator', 'uncle']);
    await fetchBlockTraceSummary(rpc, 6_452_018n);
    expect(server.callCount('trace_block')).toBe(3); // probe + two blocks
    expect(server.callCount('debug_traceBlockByNumber')).toBe(0);
  });

  it('falls back to debug_traceBlockByNumber with the callTracer', async () => {
    const { server, rpc } = await rpcFor({
      unsupportedMethods: ['trace_block'],
      handlers: { debug_traceBlockByNumber: () => callTracerOutput },
    });
    expect(await detectTraceMethod(rpc, 1n)).toBe('debug_traceBlockByNumber');
    expect(await fetchBlockTraceSummary(rpc, 1n)).toMatchObject({ rewards: null, internalTransactionsCount: 4 });
    expect(await fetchBlockTraceSummary(rpc, 2n)).toMatchObject({ rewards: null, internalTransactionsCount: 4 });
    expect(server.callCount('trace_block')).toBe(1);
  });

  it('a node answering null for a block it has: an error naming the method and the block (it was "entries is not iterable")', async () => {
    let calls = 0;
    const { rpc } = await rpcFor({ handlers: { trace_block: () => (calls++ === 0 ? [] : null) } });
    await expect(fetchBlockTraceSummary(rpc, 7n)).rejects.toThrow('trace_block: the node answered null for block 7, not a list of traces');
  });

  it('returns null when the node has no tracing at all', async () => {
    const { server, rpc } = await rpcFor({ unsupportedMethods: ['trace_block', 'debug_traceBlockByNumber'] });
    expect(await fetchBlockTraceSummary(rpc, 4_417_196n)).toBeNull();
    expect(await fetchBlockTraceSummary(rpc, 6_452_018n)).toBeNull();
    expect(server.callCount('trace_block')).toBe(1);
    expect(server.callCount('debug_traceBlockByNumber')).toBe(1);
  });

  it('does not cache a probe that failed for another reason', async () => {
    const { server, rpc } = await rpcFor({});
    server.injectFault({ kind: 'rpc-error', code: -32000, message: 'missing trie node' }, { method: 'trace_block' });
    await expect(fetchBlockTraceSummary(rpc, 4_417_196n)).rejects.toThrow('missing trie node');
    await expect(fetchBlockTraceSummary(rpc, 4_417_196n)).resolves.not.toBeNull();
  });
});
