import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { freshDatabase, postgresAvailable } from '../support/databases.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { deployScenario, generateActivity, type ActivityHandle } from '../../src/devnet/scenario.js';
import { startIndexer, waitFor, DEVNET_CHAIN_ID, type RunningIndexer } from '../support/indexer-harness.js';
import { indexedState } from '../support/ground-truth.js';
import { startTestApi, type TestApi } from '../support/api.js';

const OUTAGE_MS = Number(process.env.RELIABILITY_FULL ? 20_000 : 4_000);

// The database goes away under a serving API and a running indexer, then comes back: the
// API answers 503 meanwhile and recovers by itself; the indexer waits, retries and ends in the
// same state as an indexer that never saw the outage.
describe.runIf(await postgresAvailable())('PostgreSQL outage while serving and indexing', () => {
  let node: TestNode;
  let activity: ActivityHandle;
  let proxy: TcpProxy;
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let viaProxy: Database;
  let indexer: RunningIndexer;
  let api: TestApi;

  beforeAll(async () => {
    node = await startTestNode();
    const scenario = await deployScenario(node, { holders: 40, nfts: 5 });
    activity = generateActivity(node, scenario, { blocksPerSecond: 4, miners: 3 });
    fresh = await freshDatabase('postgres');
    proxy = await startTcpProxy(Number(new URL(fresh.url!).port || 5432));
    const url = new URL(fresh.url!);
    url.port = String(proxy.port);
    viaProxy = await openDatabase({ databaseUrl: url.toString(), poolSize: 4 });
    indexer = await startIndexer(viaProxy, node.url);
    api = await startTestApi('postgres', { db: viaProxy });
    await indexer.caughtUp();
  }, 120_000);
  afterAll(async () => {
    await activity?.stop();
    await indexer?.stop().catch(() => undefined);
    await api?.app.close();
    await viaProxy?.close();
    await proxy?.close();
    await fresh?.drop();
    await node?.stop();
  });

  it('503 during the outage, recovery after, and no block lost or doubled', async () => {
    const blocksPath = `/${DEVNET_CHAIN_ID}/api/v2/addresses/${activity.miners[0]}/blocks-validated`;
    expect((await api.get(blocksPath)).status).toBe(200);
    proxy.cut();
    const during: number[] = [];
    const until = Date.now() + OUTAGE_MS;
    while (Date.now() < until) {
      const res = await api.get(blocksPath, { items_count: 1 });
      during.push(res.status);
      if (res.status !== 200) expect(res.body).toEqual({ message: 'Service unavailable' });
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(during.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(during.every((s) => s === 503 || s === 200)).toBe(true);
    expect(indexer.finished).toBe(false);
    proxy.restore();
    await waitFor(async () => ((await api.get(blocksPath)).status === 200 ? true : undefined), () => 'API to recover', 30_000);
    await activity.stop();
    await indexer.caughtUp({ timeoutMs: 60_000 });
    expect(indexer.logger.find('retrying').length).toBeGreaterThan(0);
    await indexer.stop();
    // ground truth: the same chain indexed from scratch, with no outage, into another database
    const reference = await freshDatabase('postgres');
    try {
      const { indexToHead } = await import('../support/indexer-harness.js');
      await indexToHead(reference.db, node.url);
      expect(await indexedState(viaProxy, DEVNET_CHAIN_ID)).toEqual(await indexedState(reference.db, DEVNET_CHAIN_ID));
    } finally {
      await reference.drop();
    }
    console.log(`db outage: ${during.length} requests during ${OUTAGE_MS} ms outage, ${during.filter((s) => s === 503).length} answered 503, 0 errors after recovery`);
  }, 180_000);
});
