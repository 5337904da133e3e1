/**
 * /health follows real indexing failures and recovers by itself: the database refusing the
 * indexer's writes (disk full, raised by the real server at the batch write) and the RPC node
 * going away (a TCP proxy in front of anvil cut). In one process on both engines, and with
 * `explorer index` and `explorer serve` as separate processes on one PostgreSQL, where the API
 * only knows what the indexer wrote to the database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { Database } from '../../src/db/client.js';
import { buildServer } from '../../src/api/server.js';
import { IndexerMetrics } from '../../src/indexer/metrics.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { apiConfig } from '../support/api.js';
import { freePort, startApiProcess } from '../support/api-process.js';
import { indexedBlock } from '../../src/db/queries/progress.js';
import { startCli } from '../support/cli.js';
import { availableEngines, freshDatabase, postgresAvailable, type Engine } from '../support/databases.js';
import { DEVNET_CHAIN_ID, startIndexer, waitFor } from '../support/indexer-harness.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const STALE_MS = 2_000;

interface Answer {
  status: number;
  body: { status: string; chains: Array<{ chain_id: number; status: string; indexed_block: number | null; lag: number | null; reasons: string[] }> };
}

/** The database answers every write to `blocks` as a full disk would. */
async function refuseWrites(db: Database): Promise<void> {
  await db.exec(`
    CREATE FUNCTION test_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = '53100'; END $$;
    CREATE TRIGGER test_disk_full BEFORE INSERT OR UPDATE ON blocks FOR EACH STATEMENT EXECUTE FUNCTION test_disk_full();
  `);
}

async function allowWrites(db: Database): Promise<void> {
  await db.exec('DROP TRIGGER test_disk_full ON blocks; DROP FUNCTION test_disk_full();');
}

const reasons = (a: Answer) => a.body.chains.find((c) => c.chain_id === DEVNET_CHAIN_ID)?.reasons.join('; ') ?? '';
const ok = (a: Answer) => a.status === 200 && a.body.status === 'ok';
const ours = (a: Answer) => a.body.chains.find((c) => c.chain_id === DEVNET_CHAIN_ID);

/** Asks /health until `want` holds; the milliseconds that took. */
async function healthUntil(health: () => Promise<Answer>, want: (a: Answer) => boolean, what: string, timeoutMs = 60_000): Promise<number> {
  const started = Date.now();
  let last: Answer | undefined;
  await waitFor(async () => ((last = await health()), want(last) ? true : undefined), () => `${what}; last answer ${JSON.stringify(last)}`, timeoutMs, 200);
  return Date.now() - started;
}

/** Ok → the database refuses writes → degraded → writes allowed → ok → node gone → degraded → back → ok. */
async function degradeAndRecover(
  health: () => Promise<Answer>,
  db: Database,
  node: TestNode,
  rpc: TcpProxy,
  /** checks while each fault lasts, once /health has seen it */
  during: { refused?: () => Promise<void>; nodeGone?: () => Promise<void> } = {},
): Promise<string> {
  const until = (want: (a: Answer) => boolean, what: string, timeoutMs?: number) => healthUntil(health, want, what, timeoutMs);
  await until((a) => ok(a) && ours(a)?.indexed_block !== null && ours(a)?.lag === 0, '/health ok at the start, the chain indexed to the head');

  await refuseWrites(db);
  await node.mine(3);
  const diskFull = await until(
    (a) => a.status === 503 && a.body.status === 'degraded' && /indexing has been failing since .*: the database's disk is full: free space/.test(reasons(a)),
    'degraded while the database refuses writes',
  );
  await during.refused?.();
  await allowWrites(db);
  const afterDisk = await until(ok, 'ok once writes go through again');

  rpc.cut();
  const silent = await until((a) => a.status === 503 && /the indexer has not checked in for \d+ s .*: its node out of reach, or a step stuck/.test(reasons(a)), 'degraded while the node is gone');
  await during.nodeGone?.();
  rpc.restore();
  await node.mine(1);
  const afterNode = await until(ok, 'ok once the node is back', 120_000);
  return `disk full seen in ${diskFull} ms, recovered ${afterDisk} ms after; node gone seen in ${silent} ms (threshold ${STALE_MS} ms), recovered ${afterNode} ms after`;
}

/** A node behind a TCP proxy (the indexer's way to it) and a fresh database, for one describe block. */
function useRig(engine: Engine): () => { node: TestNode; proxy: TcpProxy; fresh: Awaited<ReturnType<typeof freshDatabase>> } {
  let rig: { node: TestNode; proxy: TcpProxy; fresh: Awaited<ReturnType<typeof freshDatabase>> } | undefined;
  beforeAll(async () => {
    const node = await startTestNode();
    rig = { node, proxy: await startTcpProxy(Number(new URL(node.url).port)), fresh: await freshDatabase(engine) };
  }, 120_000);
  afterAll(async () => {
    await rig?.proxy.close();
    await rig?.fresh.drop();
    await rig?.node.stop();
  });
  return () => rig!;
}

describe.each(await availableEngines())('/health follows a failing indexer, one process (%s)', (engine) => {
  const rig = useRig(engine);

  it('degraded (503) while the database refuses writes or the node is gone, ok again after', async () => {
    const { node, proxy, fresh } = rig();
    await node.mine(5);
    const metrics = new IndexerMetrics();
    const indexer = await startIndexer(fresh.db, `http://127.0.0.1:${proxy.port}`, { metrics });
    const app = await buildServer({ db: fresh.db, api: apiConfig({ healthStaleMs: STALE_MS }) });
    const value = async (gauge: 'stepFailures' | 'polledAt') => (await metrics[gauge].get()).values.find((v) => String(v.labels.chain_id) === String(DEVNET_CHAIN_ID))?.value;
    const series = async (gauge: 'stepFailures' | 'polledAt') => (await value(gauge)) ?? 0;
    try {
      await indexer.caughtUp();
      // there before the first failure, for an alert on its rate (L2 review)
      expect(await value('stepFailures')).toBe(0);
      const health = async () => {
        const res = await app.inject({ url: '/health' });
        return { status: res.statusCode, body: res.json() } as Answer;
      };
      let failures = 0;
      const during = {
        // a fault that lasts is said once, not once per retry (a full disk wrote a line a second,
        // outside review), as the database's: /health's word for it
        refused: async () => {
          await waitFor(async () => ((failures = await series('stepFailures')) >= 3 ? true : undefined), () => 'three failed steps', 30_000, 100);
          const said = indexer.logger.find('indexing step failed');
          expect(said.map((e) => [e.level, e.obj.database, e.obj.err])).toEqual([['error', true, 'could not extend file: No space left on device']]);
        },
        // explorer_last_poll_timestamp_seconds ages as /health's polled_at does
        nodeGone: async () => expect(Date.now() / 1000 - (await series('polledAt'))).toBeGreaterThan(STALE_MS / 1000),
      };
      console.log(`health (${engine}, one process): ${await degradeAndRecover(health, fresh.db, node, proxy, during)}`);
      expect(indexer.finished).toBe(false);
      const recovered = indexer.logger.find('indexing recovered', 'info');
      expect(recovered.length).toBeGreaterThanOrEqual(1);
      expect(recovered[0]!.obj.failures).toBeGreaterThanOrEqual(failures);
      expect(Date.now() / 1000 - (await series('polledAt'))).toBeLessThan(5);
    } finally {
      await app.close();
      await indexer.stop();
    }
  }, 300_000);
});

describe.runIf(await postgresAvailable())('/health follows a failing indexer, `explorer index` and `explorer serve` apart', () => {
  const rig = useRig('postgres');

  it('the API process sees what the indexer process wrote: degraded, then ok', async () => {
    const { node, proxy, fresh } = rig();
    await node.mine(5);
    const env = { DATABASE_URL: fresh.url!, EXPLORER_POLL_MS: '100' };
    const metricsPort = await freePort();
    const indexer = startCli(['index', '--chain', `${DEVNET_CHAIN_ID}=http://127.0.0.1:${proxy.port}`, '--metrics-port', String(metricsPort)], { env });
    const api = await startApiProcess({ ...env, EXPLORER_HEALTH_STALE_MS: String(STALE_MS) });
    try {
      const health = async () => {
        const res = await fetch(`${api.url}/health`);
        return { status: res.status, body: await res.json() } as Answer;
      };
      await waitFor(async () => ((await health()).body.chains.length > 0 ? true : undefined), () => `the indexer to register its chain: ${indexer.stderr()}`, 60_000, 200);
      console.log(`health (separate processes): ${await degradeAndRecover(health, fresh.db, node, proxy)}`);
      expect(indexer.child.exitCode).toBeNull();
      // the indexer process, which has no API, shows its series on --metrics-port: what it stored
      // (read until both agree: a batch may commit between the two reads)
      let series = '';
      await waitFor(
        async () => {
          const stored = (await indexedBlock(fresh.db, DEVNET_CHAIN_ID))?.number;
          series = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
          const shown = new RegExp(`^explorer_indexed_block\\{chain_id="${DEVNET_CHAIN_ID}"\\} (\\d+)$`, 'm').exec(series)?.[1];
          return stored !== undefined && shown === String(stored) ? true : undefined;
        },
        () => `explorer_indexed_block on --metrics-port to show the stored block: ${series.slice(0, 2_000)}`,
        10_000,
        200,
      );
      expect(series).toMatch(/^process_cpu_user_seconds_total /m);
    } finally {
      await api.stop();
      await indexer.stop();
    }
  }, 300_000);
});

describe.runIf(await postgresAvailable())('/health and a step stuck on the database', () => {
  const rig = useRig('postgres');

  it("degraded while the batch's write waits on a lock an operator's session holds, ok again once it goes; nothing failed, nothing lost", async () => {
    const { node, proxy, fresh } = rig();
    await node.mine(5);
    const indexer = await startIndexer(fresh.db, `http://127.0.0.1:${proxy.port}`);
    const app = await buildServer({ db: fresh.db, api: apiConfig({ healthStaleMs: STALE_MS }) });
    const operator = new pg.Client({ connectionString: fresh.url! });
    await operator.connect();
    const health = async () => {
      const res = await app.inject({ url: '/health' });
      return { status: res.statusCode, body: res.json() } as Answer;
    };
    try {
      await indexer.caughtUp();
      await healthUntil(health, (a) => ok(a) && ours(a)?.lag === 0, '/health ok at the start');
      // what CREATE INDEX (not CONCURRENTLY) takes: reads go on, writes wait
      await operator.query('BEGIN');
      await operator.query('LOCK TABLE blocks IN SHARE MODE');
      await node.mine(3);
      const seen = await healthUntil(
        health,
        (a) => a.status === 503 && /the indexer has not checked in for \d+ s .*a step stuck \(a database lock waited on/.test(reasons(a)),
        'degraded while the write waits',
      );
      // and who holds what it waits for: the operator's session
      const holder = (await operator.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      const said = reasons(await health());
      expect(said).toMatch(new RegExp(`a session of the database has waited \\d+ s for a lock that pid ${holder} holds \\(application -, idle in transaction, its transaction open \\d+ s\\)`));
      // a wait, not a failure: nothing to retry, nothing logged as failed
      expect(indexer.logger.find('indexing step failed')).toEqual([]);
      await operator.query('COMMIT');
      const back = await healthUntil(health, ok, 'ok once the lock goes');
      const head = await indexer.caughtUp();
      expect(head).toBe(await node.public.getBlockNumber());
      expect(indexer.finished).toBe(false);
      console.log(`health (a step stuck on a lock): degraded seen in ${seen} ms (threshold ${STALE_MS} ms), ok ${back} ms after the lock went, indexed to ${head}`);
    } finally {
      await operator.end();
      await app.close();
      await indexer.stop();
    }
  }, 300_000);
});
