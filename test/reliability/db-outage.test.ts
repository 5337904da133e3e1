import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { freshDatabase, postgresAvailable } from '../support/databases.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { deployScenario, generateActivity, type ActivityHandle, type DemoScenario } from '../../src/devnet/scenario.js';
import { startIndexer, waitFor, DEVNET_CHAIN_ID, type RunningIndexer } from '../support/indexer-harness.js';
import { indexedState, nodeState, sortedEntries, truthClient } from '../support/ground-truth.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { indexedBlock } from '../../src/db/queries/progress.js';

const FULL = process.env.RELIABILITY_FULL === '1';
const OUTAGE_MS = FULL ? 20_000 : 4_000;
/** how long every request must succeed once the API answered again */
const AFTER_MS = FULL ? 10_000 : 3_000;
/** the page cache as it runs by default: a 200 during the outage can only be one of its pages */
const PAGE_CACHE_MS = 1_000;
const UNAVAILABLE = { message: 'Service unavailable' };

interface Answer {
  path: string;
  status: number;
  sentAt: number;
  cache: unknown;
  body: unknown;
}

// The database goes away under a serving API and a running indexer (PostgreSQL only: PGlite
// lives in the process and cannot be cut away), then comes back: the API answers 503
// meanwhile, except for a page its cache still holds, and recovers by itself; the indexer waits,
// retries and ends equal to the node.
describe.runIf(await postgresAvailable())('PostgreSQL outage while serving and indexing', () => {
  let node: TestNode;
  let scenario: DemoScenario;
  let activity: ActivityHandle;
  let proxy: TcpProxy;
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let viaProxy: Database;
  let indexer: RunningIndexer;
  let api: TestApi;

  beforeAll(async () => {
    node = await startTestNode();
    scenario = await deployScenario(node, { holders: 40, nfts: 5 });
    const deployed = await node.public.getBlockNumber();
    activity = generateActivity(node, scenario, { blocksPerSecond: 4, miners: 3 });
    fresh = await freshDatabase('postgres');
    proxy = await startTcpProxy(Number(new URL(fresh.url!).port || 5432));
    const url = new URL(fresh.url!);
    url.port = String(proxy.port);
    viaProxy = await openDatabase({ databaseUrl: url.toString(), poolSize: 4 });
    indexer = await startIndexer(viaProxy, node.url);
    api = await startTestApi('postgres', { db: viaProxy, api: { pageCacheMs: PAGE_CACHE_MS } });
    // past the contracts and into the live blocks (on a busy machine it may trail a chain that
    // grows 4 blocks a second, so not "caught up")
    await waitFor(
      async () => ((await indexedBlock(viaProxy, DEVNET_CHAIN_ID))?.number ?? -1n) > deployed + 4n || undefined,
      () => 'the indexer to index the live blocks',
      60_000,
    );
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

  it('503 or a cached page during the outage, 0 errors after recovery, and the node\'s state at the end', async () => {
    const paths = [
      `/${DEVNET_CHAIN_ID}/api/v2/addresses/${activity.miners[0]}/blocks-validated`,
      `/${DEVNET_CHAIN_ID}/api/v2/tokens/${scenario.erc1155}/holders`,
    ];
    const ask = async (path: string): Promise<Answer> => {
      const sentAt = Date.now();
      const res = await api.get(path, { items_count: 1 });
      return { path, status: res.status, sentAt, cache: res.headers['x-cache'], body: res.body };
    };

    // the pages as served just before the cut: the only 200s the outage may still see, from the
    // cache, and only within its TTL of having been read
    const cached = new Map<string, { body: unknown; readBy: number }>();
    for (const path of paths) {
      const before = await ask(path);
      expect(before.status).toBe(200);
      cached.set(path, { body: before.body, readBy: Date.now() });
    }
    proxy.cut();
    const cutAt = Date.now();
    const during: Answer[] = [];
    while (Date.now() < cutAt + OUTAGE_MS) {
      for (const path of paths) during.push(await ask(path));
      await sleep(100);
    }
    const fromCache = (a: Answer) => {
      const page = cached.get(a.path)!;
      return a.status === 200 && a.cache === 'hit' && a.sentAt <= page.readBy + PAGE_CACHE_MS && JSON.stringify(a.body) === JSON.stringify(page.body);
    };
    const unavailable = (a: Answer) => a.status === 503 && JSON.stringify(a.body) === JSON.stringify(UNAVAILABLE);
    const offTheRecord = during.filter((a) => !fromCache(a) && !unavailable(a));
    expect(offTheRecord.map((a) => `${a.path} +${a.sentAt - cutAt} ms: ${a.status} ${a.cache ?? ''} ${JSON.stringify(a.body).slice(0, 200)}`)).toEqual([]);
    const answered503 = during.filter(unavailable).length;
    expect(answered503).toBeGreaterThan(during.length / 2);
    expect(indexer.finished).toBe(false);

    proxy.restore();
    const restoredAt = Date.now();
    await waitFor(async () => ((await Promise.all(paths.map(ask))).every((a) => a.status === 200) ? true : undefined), () => 'API to recover', 30_000);
    const recoveredAt = Date.now();
    // from the first success on, every answer counts: an error here is a recovery that is not one
    const after: Answer[] = [];
    while (Date.now() < recoveredAt + AFTER_MS) {
      for (const path of paths) after.push(await ask(path));
      await sleep(50);
    }
    const errorsAfter = after.filter((a) => a.status !== 200);
    expect(errorsAfter.map((a) => `${a.path} +${a.sentAt - recoveredAt} ms: ${a.status} ${JSON.stringify(a.body)}`)).toEqual([]);
    expect(after.length).toBeGreaterThan(20);

    await activity.stop();
    const head = await indexer.caughtUp({ timeoutMs: 60_000 });
    expect(indexer.logger.find('retrying').length).toBeGreaterThan(0);
    await indexer.stop();
    // ground truth: the node itself (balanceOf of every holding its token events touched, ERC-721
    // and ERC-1155 included; its blocks' hashes and miners), not another index by the same code
    const ours = await indexedState(viaProxy, DEVNET_CHAIN_ID);
    const truth = await nodeState(truthClient(node.url), head);
    expect(sortedEntries(ours.blocks)).toEqual(sortedEntries(truth.blocks));
    expect(sortedEntries(ours.balances)).toEqual(sortedEntries(truth.balances));
    expect(sortedEntries(ours.holderCounts)).toEqual(sortedEntries(truth.holderCounts));
    console.log(
      `db outage: ${during.length} requests during ${OUTAGE_MS} ms outage: ${answered503} × 503, ` +
        `${during.filter(fromCache).length} × 200 from the page cache, ${offTheRecord.length} other; ` +
        `recovered ${recoveredAt - restoredAt} ms after the restore; ${after.length} requests in the ${AFTER_MS} ms after: ${errorsAfter.length} errors; ` +
        `end state = node at block ${head}: ${ours.blocks.size} blocks, ${ours.balances.size} balances, ${ours.holderCounts.size} tokens`,
    );
  }, 180_000);
});
