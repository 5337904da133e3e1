/**
 * The indexer configured with a `ws://` RPC URL indexes over WebSocket (anvil serves it on its
 * HTTP port), through a TCP proxy that drops every connection every few batches (calls in
 * flight, blocks fetched ahead), refuses connections for a while, and once goes silent without
 * closing (a half-open connection). It must reconnect each time and end equal to the node:
 * balances = balanceOf, holder counts, supplies, blocks 0..head with the node's hashes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { buildCrashChain, compareWithNode, describeReport, mismatchCount, type CrashChain } from '../support/crash-harness.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { DEVNET_CHAIN_ID, startIndexer, waitFor } from '../support/indexer-harness.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const engines = await availableEngines();

describe.each(engines)('indexing over WebSocket on %s', (engine) => {
  let node: TestNode;
  let proxy: TcpProxy;
  let chain: CrashChain;

  beforeAll(async () => {
    node = await startTestNode();
    proxy = await startTcpProxy(node.anvil.port);
    chain = await buildCrashChain(node, {
      bulk: { transfers: 3_000, tokens: 3, holders: 300, transfersPerTx: 50, txsPerBlock: 2, seed: 'ws' },
      miners: 3,
      emptyBlocks: 60,
      seed: 'ws',
    });
  }, 180_000);
  afterAll(async () => {
    await proxy?.close();
    await node?.stop();
  });

  it('reconnects after every drop and loses nothing', async () => {
    const { db, drop } = await freshDatabase(engine);
    let batches = 0;
    let drops = 0;
    // cuts that found a connection open: a cut between a drop and the reconnect severs nothing
    let severing = 0;
    let stalls = 0;
    const indexer = await startIndexer(db, `ws://127.0.0.1:${proxy.port}`, {
      timeoutMs: 1_000,
      // A narrow budget keeps the fetch only a few blocks ahead of the writer (2 in flight, a
      // window of 8), so every cut finds a connection in use: with the default budget the whole
      // chain is fetched in the first second and later cuts would sever nothing.
      chain: { rpcConcurrency: 1, rpcBatchSize: 3 },
      indexer: {
        minBatchBlocks: 3,
        maxBatchBlocks: 6,
        onBatch: () => {
          batches += 1;
          if (batches % 3 === 0) {
            // every third batch: drop every connection, refuse new ones for a moment
            if (proxy.cut() > 0) severing += 1;
            drops += 1;
            setTimeout(() => proxy.restore(), batches % 2 === 0 ? 300 : 0);
          } else if (batches === 10) {
            proxy.stall();
            stalls += 1;
            setTimeout(() => proxy.restore(), 200);
          }
        },
      },
    });
    try {
      await indexer.caughtUp({ node: node.anvil.url, timeoutMs: 120_000 });
      // and following the head over the same connection: a few more blocks of transfers
      await node.mine(3);
      await indexer.caughtUp({ node: node.anvil.url, timeoutMs: 60_000 });
      // a cut in the last batch may still be on its way to the client's close handler
      const closes = () => indexer.logger.find('RPC WebSocket closed').length;
      await waitFor(async () => (closes() >= severing ? true : undefined), () => `${closes()} close logs for ${severing} severed connections`, 5_000);
    } finally {
      await indexer.stop();
    }
    const report = await compareWithNode(db, { url: node.anvil.url, chainId: DEVNET_CHAIN_ID, holdings: chain.holdings });
    console.log(`[websocket ${engine}] ${batches} batches, ${drops} drops (${severing} severing a connection), ${stalls} stall; ${describeReport(report)}`);
    expect(severing).toBeGreaterThanOrEqual(3);
    expect(stalls).toBe(1);
    expect(mismatchCount(report), describeReport(report)).toBe(0);
    expect(report.indexedBlock).toBe(await node.public.getBlockNumber());
    await sleep(0);
    await drop();
  }, 240_000);
});
