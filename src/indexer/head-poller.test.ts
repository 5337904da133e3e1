import { describe, expect, it } from 'vitest';
import { HeadPoller } from './head-poller.js';
import type { RpcClient } from '../rpc/client.js';

/** An RPC client whose eth_blockNumber answers only when told to. */
function manualHead() {
  const pending: Array<(head: bigint) => void> = [];
  const rpc = { getBlockNumber: () => new Promise<bigint>((resolve) => pending.push(resolve)) } as unknown as RpcClient;
  return { rpc, pending };
}

const signal = new AbortController().signal;

describe('HeadPoller', () => {
  it('waits for the node only when the known head is below the next block; otherwise asks in the background once it is old', async () => {
    const node = manualHead();
    const heads = new HeadPoller(node.rpc, 0);
    const first = heads.atLeast(5n, signal);
    expect(node.pending).toHaveLength(1);
    node.pending[0]!(100n);
    expect(await first).toBe(100n);
    // known and old (maxAge 0): answered at once, one question in the background
    expect(await heads.atLeast(50n, signal)).toBe(100n);
    expect(await heads.atLeast(60n, signal)).toBe(100n);
    expect(node.pending).toHaveLength(2);
    node.pending[1]!(120n);
    await Promise.resolve();
    await Promise.resolve();
    expect(await heads.atLeast(110n, signal)).toBe(120n);
    // past the known head: this one is awaited
    const past = heads.atLeast(121n, signal);
    node.pending[node.pending.length - 1]!(121n);
    expect(await past).toBe(121n);
  });

  it('asks nothing while the known head is young', async () => {
    const node = manualHead();
    const heads = new HeadPoller(node.rpc, 60_000);
    const first = heads.atLeast(0n, signal);
    node.pending[0]!(10n);
    await first;
    for (let n = 0n; n <= 10n; n++) expect(await heads.atLeast(n, signal)).toBe(10n);
    expect(node.pending).toHaveLength(1);
  });

  it('after forget(), an answer asked for before it is not taken as the fresh head', async () => {
    const node = manualHead();
    const heads = new HeadPoller(node.rpc, 0);
    const first = heads.atLeast(0n, signal);
    node.pending[0]!(10n);
    await first;
    await heads.atLeast(0n, signal); // background question 1 goes out
    heads.forget();
    const fresh = heads.atLeast(0n, signal); // question 2
    expect(node.pending).toHaveLength(3);
    node.pending[1]!(50n); // the stale answer
    node.pending[2]!(8n); // the node's head now (a shorter branch)
    expect(await fresh).toBe(8n);
    expect(await heads.atLeast(0n, signal)).toBe(8n);
  });
});
