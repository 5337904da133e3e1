import { afterEach, describe, expect, it } from 'vitest';
import { fixtureResult, startReplayServer, type ReplayServer, type ReplayServerOptions } from '../../test/support/replay-rpc.js';
import { buildBlockRow } from './block-row.js';
import { BlockNotAvailableError } from '../rpc/errors.js';
import { fetchBlocksWithReceipts, fetchBlockWithReceipts } from './fetch-blocks.js';
import { createRpcClient } from '../rpc/client.js';
import type { RpcReceipt } from '../rpc/types.js';

const servers: ReplayServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function setup(options: ReplayServerOptions = {}) {
  // 'latest' (the receipts probe) is a block with recorded receipts
  const server = await startReplayServer({ sets: ['ethereum-mainnet'], head: 18_000_000n, ...options });
  servers.push(server);
  const rpc = createRpcClient({ chainId: 1, urls: [server.url], retry: { baseDelayMs: 1, maxDelayMs: 5 } });
  return { server, rpc };
}

describe('fetchBlockWithReceipts', () => {
  it('fetches block and eth_getBlockReceipts in one batch; the row over HTTP has the check values', async () => {
    const { server, rpc } = await setup();
    const { block, receipts } = await fetchBlockWithReceipts(rpc, 18_000_000n);
    expect(receipts).toHaveLength(94);
    expect(receipts.map((r) => r.transactionIndex)).toEqual(receipts.map((_, i) => `0x${i.toString(16)}`));
    const row = buildBlockRow(block, receipts, null, { chainId: 1 });
    expect(row.transactionFees).toBe(383604366542520501n);
    expect(row.burntFees).toBe(352907159041663251n);
    // probe, then one exchange carrying both calls
    expect(server.calls.map((c) => c.methods)).toEqual([['eth_getBlockReceipts'], ['eth_getBlockByNumber', 'eth_getBlockReceipts']]);
  });

  it('falls back to eth_getTransactionReceipt when eth_getBlockReceipts is unsupported, detecting once', async () => {
    const { server, rpc } = await setup({ sets: ['arbitrum-sepolia'], chainId: 421614, head: 185_232_421n, unsupportedMethods: ['eth_getBlockReceipts'] });
    const expected = fixtureResult<RpcReceipt[]>('arbitrum-sepolia/block-185232421.eth_getBlockReceipts.json');
    const first = await fetchBlockWithReceipts(rpc, 185_232_421n);
    expect(first.receipts.map((r) => r.transactionHash)).toEqual(expected.map((r) => r.transactionHash));
    expect(server.callCount('eth_getTransactionReceipt')).toBe(7);
    await fetchBlockWithReceipts(rpc, 185_232_421n);
    expect(server.callCount('eth_getBlockReceipts')).toBe(1);
    expect(server.callCount('eth_getTransactionReceipt')).toBe(14);
    expect(buildBlockRow(first.block, first.receipts, null, { chainId: 421614 }).transactionFees).toBe(97_735_000_000_000n);
  });

  it('polls a block the node does not have yet instead of skipping it', async () => {
    const { server, rpc } = await setup();
    server.injectFault({ kind: 'null-result' }, { method: 'eth_getBlockByNumber', times: 2 });
    const { block } = await fetchBlockWithReceipts(rpc, 18_000_000n, { pollIntervalMs: 5 });
    expect(block.number).toBe('0x112a880');
    expect(server.callCount('eth_getBlockByNumber')).toBe(3);
  });

  it('polls receipts that are not available yet', async () => {
    const { server, rpc } = await setup();
    server.injectFault({ kind: 'null-result' }, { method: 'eth_getBlockReceipts', times: 2 });
    const { receipts } = await fetchBlockWithReceipts(rpc, 18_000_000n, { pollIntervalMs: 5 });
    expect(receipts).toHaveLength(94);
  });

  it('takes a block without transactions as having no receipts, whatever the node says of them (null: a relay, a backend behind)', async () => {
    const { server, rpc } = await setup({ sets: ['arbitrum-sepolia'], chainId: 421614, head: 185_232_421n });
    server.injectFault({ kind: 'null-result' }, { method: 'eth_getBlockReceipts', times: 1_000 });
    // (before, the null was polled until the wait ran out)
    const { block, receipts } = await fetchBlockWithReceipts(rpc, 0n, { pollIntervalMs: 5, maxWaitMs: 500 });
    expect(block.transactions).toEqual([]);
    expect(receipts).toEqual([]);
  });

  it('refetches when the receipts belong to another block (reorg between the two calls)', async () => {
    const otherBlockReceipts = fixtureResult<RpcReceipt[]>('ethereum-mainnet/block-17000000.erigon_getBlockReceiptsByBlockHash.json');
    const realReceipts = fixtureResult<RpcReceipt[]>('ethereum-mainnet/block-18000000.eth_getBlockReceipts.json');
    let calls = 0;
    const { rpc } = await setup({
      handlers: { eth_getBlockReceipts: ([ref]) => (ref === 'latest' ? realReceipts : ++calls <= 2 ? otherBlockReceipts : realReceipts) },
    });
    const { receipts } = await fetchBlockWithReceipts(rpc, 18_000_000n, { pollIntervalMs: 5 });
    expect(receipts[0]?.blockHash).toBe(realReceipts[0]?.blockHash);
    expect(calls).toBe(3);
  });

  it('gives up on a missing block only when told to', async () => {
    const { rpc } = await setup();
    await expect(fetchBlockWithReceipts(rpc, 18_000_001n, { pollIntervalMs: 10, maxWaitMs: 50 })).rejects.toBeInstanceOf(BlockNotAvailableError);
  });
});

describe('fetchBlocksWithReceipts', () => {
  it('returns the range in order and nothing for an empty range', async () => {
    const { rpc } = await setup();
    const blocks = await fetchBlocksWithReceipts(rpc, 18_000_000n, 18_000_000n);
    expect(blocks.map((b) => b.block.number)).toEqual(['0x112a880']);
    expect(await fetchBlocksWithReceipts(rpc, 5n, 4n)).toEqual([]);
  });

  it('fetches a longer range concurrently, in order, batching the calls', async () => {
    // The fixtures hold no run of consecutive blocks with receipts; empty synthetic blocks are
    // enough to check ordering and batching.
    const emptyBlock = (ref: unknown) => {
      const n = BigInt(String(ref));
      const hash = `0x${n.toString(16).padStart(64, '0')}`;
      return { number: `0x${n.toString(16)}`, hash, parentHash: hash, timestamp: '0x0', gasLimit: '0x0', gasUsed: '0x0', transactions: [] };
    };
    const { server, rpc } = await setup({ handlers: { eth_getBlockByNumber: ([ref]) => emptyBlock(ref), eth_getBlockReceipts: () => [] } });
    const blocks = await fetchBlocksWithReceipts(rpc, 100n, 119n, { concurrency: 10 });
    expect(blocks.map((b) => BigInt(b.block.number))).toEqual(Array.from({ length: 20 }, (_, i) => 100n + BigInt(i)));
    expect(server.callCount('eth_getBlockByNumber')).toBe(20);
    // 10 blocks in flight share an HTTP exchange: far fewer exchanges than calls.
    expect(server.calls.length).toBeLessThanOrEqual(6);
  });
});
