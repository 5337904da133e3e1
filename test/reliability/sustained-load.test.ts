import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { freshDatabase, postgresAvailable } from '../support/databases.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { deployScenario, generateActivity, type ActivityHandle, type DemoScenario } from '../../src/devnet/scenario.js';
import { startIndexer, DEVNET_CHAIN_ID, type RunningIndexer } from '../support/indexer-harness.js';
import { startTestApi, TEST_KEY, type TestApi } from '../support/api.js';
import { runLoad } from '../support/load.js';

const LOAD_MS = process.env.RELIABILITY_FULL ? 60_000 : 8_000;
const CONNECTIONS = 8;

// The API under steady load while the indexer follows a live chain in the same process:
// no errors, tail latency within 2× of the same load with the chain idle, memory flat.
describe.runIf(await postgresAvailable())('sustained load with the indexer following a live chain', () => {
  let node: TestNode;
  let scenario: DemoScenario;
  let activity: ActivityHandle | undefined;
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let indexer: RunningIndexer;
  let api: TestApi;
  let base: string;

  beforeAll(async () => {
    node = await startTestNode();
    scenario = await deployScenario(node, { holders: 200, nfts: 5 });
    fresh = await freshDatabase('postgres');
    indexer = await startIndexer(fresh.db, node.url);
    await indexer.caughtUp();
    api = await startTestApi('postgres', { db: fresh.db, api: { defaultRateLimit: 1_000_000 } });
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  }, 120_000);
  afterAll(async () => {
    await activity?.stop();
    await indexer?.stop().catch(() => undefined);
    await api?.app.close();
    await fresh?.drop();
    await node?.stop();
  });

  it(`${LOAD_MS / 1000} s of load: 0 errors, p99 ≤ 2× idle, memory flat`, async () => {
    const urls = [
      `${base}/${DEVNET_CHAIN_ID}/api/v2/tokens/${scenario.erc20}/holders?items_count=50`,
      `${base}/${DEVNET_CHAIN_ID}/api/v2/tokens/${scenario.erc20}/holders?items_count=50&value=1&address_hash=${scenario.erc20}`,
      `${base}/${DEVNET_CHAIN_ID}/api/v2/addresses/${scenario.deployer}/blocks-validated?items_count=50`,
    ];
    const headers = { 'x-api-key': TEST_KEY };
    await runLoad(urls, { connections: CONNECTIONS, durationMs: 1_000, headers }); // warm-up
    const idle = await runLoad(urls, { connections: CONNECTIONS, durationMs: LOAD_MS / 2, headers });
    activity = generateActivity(node, scenario, { blocksPerSecond: 2, miners: 3 });
    const heap: number[] = [];
    const sampler = setInterval(() => heap.push(process.memoryUsage().heapUsed), 250);
    const live = await runLoad(urls, { connections: CONNECTIONS, durationMs: LOAD_MS, headers });
    clearInterval(sampler);
    const blocksSeen = activity.stats().blocks;
    await activity.stop();
    await indexer.caughtUp({ timeoutMs: 60_000 });
    console.log(
      `sustained load: idle ${idle.requests} req (${idle.perSecond.toFixed(0)}/s) p50 ${idle.p50.toFixed(1)} ms p99 ${idle.p99.toFixed(1)} ms; ` +
        `live ${live.requests} req (${live.perSecond.toFixed(0)}/s) p50 ${live.p50.toFixed(1)} ms p99 ${live.p99.toFixed(1)} ms, ` +
        `${live.errors} errors, ${blocksSeen} new blocks indexed meanwhile; heap first/last third ` +
        `${(avg(heap.slice(0, heap.length / 3)) / 2 ** 20).toFixed(0)}/${(avg(heap.slice((2 * heap.length) / 3)) / 2 ** 20).toFixed(0)} MB`,
    );
    expect(idle.errors).toBe(0);
    expect(live.errors).toBe(0);
    expect(blocksSeen).toBeGreaterThan(0);
    // a small floor keeps scheduler noise on a shared 2-core machine from deciding the test
    expect(live.p99).toBeLessThanOrEqual(Math.max(2 * idle.p99, idle.p99 + 15));
    expect(avg(heap.slice((2 * heap.length) / 3))).toBeLessThan(avg(heap.slice(0, heap.length / 3)) * 1.5 + 32 * 2 ** 20);
  }, 240_000);
});

function avg(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}
