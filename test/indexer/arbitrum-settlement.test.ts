/**
 * Arbitrum settlement against two real chains: a parent anvil running the real Bridge,
 * SequencerInbox and Outbox of @arbitrum/nitro-contracts (rollup: a stand-in, see
 * test/support/arbitrum/StandIns.sol) with a batch poster posting real batches — calldata with
 * several header bytes, a blob batch (type 3, real KZG sidecar), a batch posted by a contract — for
 * ranges of a child anvil's blocks, and the rollup confirming child blocks. Every child block's
 * nine `arbitrum` fields as served must equal what the two chains say: the batch transactions'
 * receipts and the messages they posted, the parent blocks' timestamps, its `safe` block, the
 * confirmed block hashes, and the child node's header fields. Both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex, TransactionReceipt } from 'viem';
import { availableEngines, freshDatabase, type Engine } from '../support/databases.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { startIndexer, waitFor, type RunningIndexer } from '../support/indexer-harness.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { testBlobs } from '../support/blobs.js';
import { BatchPoster, confirmChildBlock, deployParentRollup, type ParentRollup } from '../support/arbitrum/rollup.js';
import { arbitrumHeader, startArbitrumChildProxy } from '../support/arbitrum/child-node.js';
import { installNodeInterface, nodeInterfaceBatch, removeNodeInterface, setNodeInterfaceBatches } from '../support/arbitrum/node-interface.js';
import { isDeepStrictEqual } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { crashTarget, killHard, spawnIndexer } from '../support/crash-harness.js';
import { isoTimestamp } from '../../src/api/views/timestamp.js';
import type { Database } from '../../src/db/client.js';
import type { ArbitrumSettlementConfig } from '../../src/chains/arbitrum/config.js';
import { IndexerMetrics } from '../../src/indexer/metrics.js';

const CHILD_CHAIN_ID = 412_346;
const SHIFT = 1n;
const CHILD_BLOCKS = 12n;

/** What the test posted and confirmed: the ground truth the served fields are held against. */
interface Posted {
  batch: bigint;
  prev: bigint;
  next: bigint;
  /** the container the batch's data header byte means (the table) */
  container: string | null;
  receipt: TransactionReceipt;
  /** posted by a contract: its transaction's input holds no counts */
  uncounted?: true;
}

interface Confirmed {
  childBlock: bigint;
  receipt: TransactionReceipt;
}

async function parentTx(parent: TestNode, receipt: TransactionReceipt, safe: bigint) {
  const block = await parent.public.getBlock({ blockNumber: receipt.blockNumber });
  return {
    hash: receipt.transactionHash,
    status: safe >= receipt.blockNumber ? 'finalized' : 'unfinalized',
    timestamp: isoTimestamp(block.timestamp),
  };
}

/**
 * The nine fields of child block `n`, from the two chains alone: the batches and confirmations
 * posted at or after `parentStartBlock` (what a follower starting there sees), else the batch the
 * child node's NodeInterface names.
 */
/** A commitment or confirmation not made yet: the reference's object with null members. */
const NO_TRANSACTION = { hash: null, status: null, timestamp: null };

async function expectedFields(
  parent: TestNode,
  child: TestNode,
  n: bigint,
  posted: readonly Posted[],
  confirmed: readonly Confirmed[],
  parentStartBlock = 0n,
) {
  const safe = (await parent.public.getBlock({ blockTag: 'safe' })).number;
  const seen = posted.filter((p) => p.receipt.blockNumber >= parentStartBlock);
  const holding = seen.find((p) => p.prev + SHIFT <= n && n <= p.next + SHIFT - 1n) ?? null;
  const sealed = await nodeInterfaceBatch(child, n);
  // a batch without counts has a known range when both its neighbours are seen or the NodeInterface names it
  const rangeKnown = (p: Posted) =>
    !p.uncounted || sealed === p.batch || (seen.some((q) => q.batch === p.batch - 1n) && seen.some((q) => q.batch === p.batch + 1n));
  const batch = holding !== null && rangeKnown(holding) ? holding : null;
  const confirmation =
    [...confirmed]
      .filter((c) => c.receipt.blockNumber >= parentStartBlock)
      .sort((a, b) => Number(a.childBlock - b.childBlock))
      .find((c) => c.childBlock >= n) ?? null;
  const header = arbitrumHeader(n);
  const commitment = batch ? await parentTx(parent, batch.receipt, safe) : null;
  const confirmationTx = confirmation ? await parentTx(parent, confirmation.receipt, safe) : null;
  const batchNumber = batch ? Number(batch.batch) : sealed === null || holding !== null ? null : Number(sealed);
  return {
    batch_number: batchNumber,
    status: confirmationTx ? 'Confirmed on base' : commitment ? 'Sent to base' : batchNumber !== null ? 'Sealed on rollup' : 'Processed on rollup',
    batch_data_container: batch?.container ?? null,
    commitment_transaction: commitment ?? NO_TRANSACTION,
    confirmation_transaction: confirmationTx ?? NO_TRANSACTION,
    delayed_messages: 0,
    l1_block_number: Number(BigInt(header.l1BlockNumber)),
    l1_block_height: Number(BigInt(header.l1BlockNumber)),
    send_count: Number(BigInt(header.sendCount)),
    send_root: header.sendRoot,
  };
}

/** The stand-in NodeInterface answers for these batches (by batch number, in order from 0). */
async function nodeInterfaceKnows(child: TestNode, batches: readonly { batch: bigint; next: bigint }[]) {
  const lasts = [...batches].sort((a, b) => Number(a.batch - b.batch)).map((b, i) => {
    expect(b.batch).toBe(BigInt(i));
    return b.next + SHIFT - 1n;
  });
  await setNodeInterfaceBatches(child, lasts);
}

async function followerCaughtUp(db: Database, parent: TestNode): Promise<void> {
  await waitFor(
    async () => {
      const head = await parent.public.getBlockNumber();
      const safe = (await parent.public.getBlock({ blockTag: 'safe' })).number;
      const headHash = (await parent.public.getBlock({ blockNumber: head })).hash;
      const rows = await db.query<{ indexed: string | null; hash: string | null; safe: string | null }>(
        `SELECT indexed_block::text AS indexed, '0x' || encode(indexed_hash, 'hex') AS hash, safe_block::text AS safe
         FROM arbitrum_parent WHERE chain_id = $1`,
        [CHILD_CHAIN_ID],
      );
      const r = rows[0];
      return r && r.indexed === head.toString() && r.hash === headHash && r.safe === safe.toString() ? true : undefined;
    },
    () => 'the settlement follower to reach the parent head',
    60_000,
  );
}

/** Every child block through the single-block route, and the items of the first blocks-validated page. */
async function readServed(api: TestApi, child: TestNode) {
  const single = new Map<bigint, unknown>();
  for (let n = 0n; n <= CHILD_BLOCKS; n++) {
    const res = await api.get(`/${CHILD_CHAIN_ID}/api/v2/blocks/${n}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    single.set(n, res.body.arbitrum);
  }
  const miner = (await child.public.getBlock({ blockNumber: 1n })).miner;
  const page = await api.get(`/${CHILD_CHAIN_ID}/api/v2/addresses/${miner}/blocks-validated`);
  expect(page.status).toBe(200);
  return { single, items: page.body.items as { height: number; arbitrum: unknown }[] };
}

/** As served, the page's items the same as the single blocks. */
async function servedFields(api: TestApi, child: TestNode) {
  const { single, items } = await readServed(api, child);
  for (const item of items) expect(item.arbitrum, `blocks-validated item ${item.height}`).toEqual(single.get(BigInt(item.height)));
  return single;
}

/**
 * Every block's fields as served, on both routes, equal what the chains say. The NodeInterface
 * step runs on its own rounds (and pages are cached for a second): the served fields may take a
 * moment to get there.
 */
async function expectAllBlocks(api: TestApi, parent: TestNode, child: TestNode, posted: Posted[], confirmed: Confirmed[], parentStartBlock = 0n) {
  const expected = new Map<bigint, unknown>();
  for (let n = 0n; n <= CHILD_BLOCKS; n++) expected.set(n, await expectedFields(parent, child, n, posted, confirmed, parentStartBlock));
  const agrees = (served: Awaited<ReturnType<typeof readServed>>) =>
    [...expected].every(([n, fields]) => isDeepStrictEqual(served.single.get(n), fields)) &&
    served.items.every((item) => isDeepStrictEqual(item.arbitrum, expected.get(BigInt(item.height))));
  const deadline = Date.now() + 20_000;
  let served = await readServed(api, child);
  while (!agrees(served) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    served = await readServed(api, child);
  }
  for (let n = 0n; n <= CHILD_BLOCKS; n++) expect(served.single.get(n), `child block ${n}`).toEqual(expected.get(n));
  for (const item of served.items) expect(item.arbitrum, `blocks-validated item ${item.height}`).toEqual(expected.get(BigInt(item.height)));
  return served.single;
}

/** The child's pipeline, with the Arbitrum kind's task beside it as the service runs them (`startIndexers`). */
function startArbitrumIndexer(db: Database, childUrl: string, settlement: ArbitrumSettlementConfig, metrics?: IndexerMetrics): Promise<RunningIndexer> {
  return startIndexer(db, childUrl, { chain: { chainId: CHILD_CHAIN_ID, arbitrum: settlement }, ...(metrics ? { metrics } : {}) });
}

/** A chain's value of one of the indexer's Prometheus series, as /metrics would show it. */
async function seriesValue(metrics: IndexerMetrics, name: string): Promise<number | undefined> {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  return metric?.values.find((v) => v.labels.chain_id === String(CHILD_CHAIN_ID))?.value;
}

/** A fresh database with the API and the Arbitrum indexer on it, for the length of `fn`. */
async function withArbitrumIndex(
  engine: Engine,
  childUrl: string,
  settlement: ArbitrumSettlementConfig,
  fn: (index: { db: Database; api: TestApi; running: RunningIndexer; metrics: IndexerMetrics }) => Promise<void>,
): Promise<void> {
  const { db, drop } = await freshDatabase(engine);
  const api = await startTestApi(engine, { db });
  const metrics = new IndexerMetrics();
  const running = await startArbitrumIndexer(db, childUrl, settlement, metrics);
  try {
    await fn({ db, api, running, metrics });
  } finally {
    await running.stop();
    await api.close();
    await drop();
  }
}

/**
 * The two chains every case starts from: a parent anvil with the rollup contracts, and a child
 * anvil of CHILD_BLOCKS blocks behind its Arbitrum proxy, with the stand-in NodeInterface
 * (test/support/arbitrum/node-interface.ts) the tests tell each batch they post.
 */
async function startChains() {
  // safe = head − 4: a transaction turns final 4 parent blocks after its own
  const parent = await startTestNode({ hardfork: 'cancun', args: ['--slots-in-an-epoch', '4'] });
  const child = await startTestNode({ chainId: CHILD_CHAIN_ID });
  const proxy = await startArbitrumChildProxy(child.url);
  await installNodeInterface(child, SHIFT);
  const contracts = await deployParentRollup(parent);
  await child.mine(Number(CHILD_BLOCKS));
  return {
    parent,
    child,
    proxy,
    contracts,
    poster: new BatchPoster(parent, contracts),
    async stop() {
      await proxy.close();
      await child.stop();
      await parent.stop();
    },
  };
}

const engines = await availableEngines();

describe.each(engines)('Arbitrum settlement from a real parent chain on %s', (engine: Engine) => {
  let parent: TestNode;
  let child: TestNode;
  let proxy: Awaited<ReturnType<typeof startArbitrumChildProxy>>;
  let contracts: ParentRollup;
  let settlement: ArbitrumSettlementConfig;
  let poster: BatchPoster;
  // what the parent chain holds, kept by the tests in order
  const posted: Posted[] = [];
  const confirmed: Confirmed[] = [];

  let chains: Awaited<ReturnType<typeof startChains>> | undefined;

  beforeAll(async () => {
    chains = await startChains();
    ({ parent, child, proxy, contracts, poster } = chains);
    settlement = { rollup: contracts.rollup.toLowerCase() as Hex, parentRpcUrls: [parent.url], parentStartBlock: 0n, messagesToBlocksShift: SHIFT };
  }, 120_000);

  afterAll(async () => {
    await chains?.stop();
  });

  it('a rollup address without code on the parent (another network\'s), or a contract that is no rollup, stops the indexer with a configuration error', async () => {
    for (const rollup of ['0x70997970c51812dc3a010c7d01b50e0d17dc79c8', contracts.outbox.toLowerCase()] as Hex[]) {
      const { db, drop } = await freshDatabase(engine);
      const running = await startArbitrumIndexer(db, proxy.url, { ...settlement, rollup });
      try {
        await expect(running.done).rejects.toThrow(new RegExp(`${rollup} on the parent chain \\(chain id \\d+\\) does not answer sequencerInbox\\(\\) and outbox\\(\\): not a rollup contract there`));
        expect(running.logger.entries.filter((e) => e.msg.startsWith('parent chain step failed'))).toEqual([]);
      } finally {
        await running.stop().catch(() => undefined);
        await drop();
      }
    }
  });

  it.runIf(engine === 'pglite')('`explorer index` with that setting: one line on stderr and exit 1 at start, before anything is indexed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbitrum-cli-'));
    try {
      const config = join(dir, 'config.json');
      const rollup = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
      writeFileSync(config, JSON.stringify({ chains: [{ chainId: CHILD_CHAIN_ID, rpcUrls: [proxy.url], arbitrum: { rollup, parentRpcUrls: [parent.url] } }] }));
      const result = await runCli(['index', '--data-dir', join(dir, 'data')], { env: { EXPLORER_CONFIG: config }, timeoutMs: 90_000 });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(
        new RegExp(`^explorer: chain ${CHILD_CHAIN_ID}: ${rollup} on the parent chain \\(chain id \\d+\\) does not answer sequencerInbox\\(\\) and outbox\\(\\): not a rollup contract there\n$`),
      );
      expect(result.stdout).not.toMatch(/"msg":"indexing"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('every child block\'s nine fields equal what the two chains say, as batches and confirmations arrive', async () => {
    await withArbitrumIndex(engine, proxy.url, settlement, async ({ db, api, running, metrics }) => {
      await running.caughtUp({ node: child.url });
      await followerCaughtUp(db, parent);
      let served = await expectAllBlocks(api, parent, child, posted, confirmed);
      expect((served.get(5n) as { status: string }).status).toBe('Processed on rollup');

      posted.push({ ...(await poster.calldata(4n, '0x00')), container: 'in_calldata' });
      posted.push({ ...(await poster.calldata(3n, '0x80')), container: 'in_anytrust' });
      posted.push({ ...(await poster.blob(2n, testBlobs(1))), container: 'in_blob4844' });
      // posted by a contract: its range comes from its neighbours
      posted.push({ ...(await poster.throughContract(1n, '0x88')), container: 'in_anytrust', uncounted: true });
      // zero-heavy (0x20) names no container of the table
      posted.push({ ...(await poster.calldata(1n, '0x20')), container: null });
      await nodeInterfaceKnows(child, posted);
      await followerCaughtUp(db, parent);
      served = await expectAllBlocks(api, parent, child, posted, confirmed);
      expect((served.get(5n) as { status: string }).status).toBe('Sent to base');
      expect((served.get(12n) as { status: string }).status).toBe('Processed on rollup');

      for (const childBlock of [5n, 9n]) {
        const hash = (await child.public.getBlock({ blockNumber: childBlock })).hash;
        confirmed.push({ childBlock, receipt: await confirmChildBlock(parent, contracts, hash, `0x${'ab'.repeat(31)}${childBlock.toString(16).padStart(2, '0')}` as Hex) });
      }
      await followerCaughtUp(db, parent);
      served = await expectAllBlocks(api, parent, child, posted, confirmed);
      expect((served.get(5n) as { status: string }).status).toBe('Confirmed on base');
      expect((served.get(10n) as { status: string }).status).toBe('Sent to base');
      // the last batch and the confirmations are younger than the parent's safe block, the first batch older
      expect((served.get(11n) as { commitment_transaction: { status: string } }).commitment_transaction.status).toBe('unfinalized');
      expect((served.get(9n) as { confirmation_transaction: { status: string } }).confirmation_transaction.status).toBe('unfinalized');
      expect((served.get(1n) as { commitment_transaction: { status: string } }).commitment_transaction.status).toBe('finalized');

      // the parent's safe block passes them all: every transaction final
      await parent.mine(6);
      await followerCaughtUp(db, parent);
      served = await expectAllBlocks(api, parent, child, posted, confirmed);
      expect((served.get(9n) as { confirmation_transaction: { status: string } }).confirmation_transaction.status).toBe('finalized');

      // /health shows the parent follower beside the chain (its answer and the chain list are cached for a few seconds)
      const parentHead = Number(await parent.public.getBlockNumber());
      const shown = await waitFor(
        async () => {
          const health = await api.app.inject({ method: 'GET', url: '/health' });
          const chains = (JSON.parse(health.body) as { chains: { chain_id: number; parent?: { indexed_block: number; lag: number } }[] }).chains;
          const p = chains.find((c) => c.chain_id === CHILD_CHAIN_ID)?.parent;
          return p?.indexed_block === parentHead ? p : undefined;
        },
        () => '/health to show the parent follower at the parent head',
        10_000,
        200,
      );
      expect(shown).toMatchObject({ indexed_block: parentHead, lag: 0 });
      // and /metrics, for alerts: the parent's head and the last parent block stored
      expect(await seriesValue(metrics, 'explorer_parent_head_block')).toBe(parentHead);
      expect(await seriesValue(metrics, 'explorer_parent_indexed_block')).toBe(parentHead);
      expect(await seriesValue(metrics, 'explorer_parent_step_failures_total')).toBe(0);
      expect(Date.now() / 1000 - (await seriesValue(metrics, 'explorer_parent_last_poll_timestamp_seconds'))!).toBeLessThan(30);
    });
  }, 240_000);

  it('a parent-chain reorg that drops a batch and a confirmation moves their blocks back, to what a fresh index finds', async () => {
    await withArbitrumIndex(engine, proxy.url, settlement, async ({ db, api, running }) => {
      await running.caughtUp({ node: child.url });
      await followerCaughtUp(db, parent);
      await expectAllBlocks(api, parent, child, posted, confirmed);

      const snapshot = await parent.snapshot();
      const batchesBefore = poster.nextBatch;
      const dropped = await poster.calldata(1n, '0x00');
      // the dropped batch's last block, and the block before it confirmed on the dropped branch
      const droppedBlock = dropped.next + SHIFT - 1n;
      // the child node's batch record keeps the batch whatever becomes of its parent transaction
      await nodeInterfaceKnows(child, [...posted, dropped]);
      const confirmedHash = (await child.public.getBlock({ blockNumber: droppedBlock - 1n })).hash;
      await confirmChildBlock(parent, contracts, confirmedHash, `0x${'cd'.repeat(32)}`);
      await parent.mine(2);
      await followerCaughtUp(db, parent);
      let served = await servedFields(api, child);
      expect((served.get(droppedBlock) as { batch_number: number; status: string }).batch_number).toBe(Number(dropped.batch));
      expect((served.get(droppedBlock - 1n) as { status: string }).status).toBe('Confirmed on base');

      // the branch with the batch and the confirmation is replaced by a longer one without them
      expect(await parent.revert(snapshot)).toBe(true);
      poster.rewind(batchesBefore, dropped.prev);
      await parent.send({ to: contracts.poster, data: '0x' });
      await parent.mine(5);
      await followerCaughtUp(db, parent);
      served = await expectAllBlocks(api, parent, child, posted, confirmed);
      // the NodeInterface still names the dropped batch: its blocks are sealed, with no commitment known
      expect(served.get(droppedBlock)).toMatchObject({ status: 'Sealed on rollup', batch_number: Number(dropped.batch), commitment_transaction: NO_TRANSACTION });
      expect((served.get(droppedBlock - 1n) as { status: string }).status).not.toBe('Confirmed on base');
      expect(running.logger.entries.some((e) => e.msg === 'parent chain reorganised; settlement data rolled back')).toBe(true);

      // the same tables as a follower that never saw the dropped branch
      const fresh = await freshDatabase(engine);
      const second = await startArbitrumIndexer(fresh.db, proxy.url, settlement);
      try {
        await followerCaughtUp(fresh.db, parent);
        // the NodeInterface step of each runs on its own rounds
        await waitFor(
          async () => (isDeepStrictEqual(await settlementTables(db), await settlementTables(fresh.db)) ? true : undefined),
          () => 'the two indexes\' settlement tables to agree',
          20_000,
          250,
        ).catch(() => undefined);
        const tables = await settlementTables(fresh.db);
        expect(await settlementTables(db)).toEqual(tables);
        expect(tables.sealed).toEqual([{ batch_number: dropped.batch.toString(), first_block: droppedBlock.toString(), last_block: droppedBlock.toString() }]);
      } finally {
        await second.stop();
        await fresh.drop();
      }
    });
  }, 240_000);

  it('a parent chain that cannot be reached holds up nothing: the chain is indexed and served, settlement unknown', async () => {
    const { db, drop } = await freshDatabase(engine);
    const api = await startTestApi(engine, { db });
    // nothing listens on port 9: every call to the parent fails and is retried, forever
    const metrics = new IndexerMetrics();
    const running = await startArbitrumIndexer(db, proxy.url, { ...settlement, parentRpcUrls: ['http://127.0.0.1:9'] }, metrics);
    try {
      await running.caughtUp({ node: child.url });
      // an alert can tell: the parent never answered (its calls are retried inside the client,
      // so no step fails as such)
      for (const name of ['explorer_parent_last_poll_timestamp_seconds', 'explorer_parent_head_block', 'explorer_parent_indexed_block']) {
        expect([name, await seriesValue(metrics, name)]).toEqual([name, undefined]);
      }
      expect(await seriesValue(metrics, 'explorer_parent_step_failures_total')).toBe(0);
      const res = await api.get(`/${CHILD_CHAIN_ID}/api/v2/blocks/3`);
      expect(res.status).toBe(200);
      const header = arbitrumHeader(3n);
      expect(res.body.arbitrum).toEqual({
        batch_number: null, status: null, batch_data_container: null, commitment_transaction: NO_TRANSACTION, confirmation_transaction: NO_TRANSACTION,
        delayed_messages: 0, l1_block_number: Number(BigInt(header.l1BlockNumber)), l1_block_height: Number(BigInt(header.l1BlockNumber)), send_count: Number(BigInt(header.sendCount)), send_root: header.sendRoot,
      });
      const health = await api.app.inject({ method: 'GET', url: '/health' });
      expect(health.statusCode, health.body).toBe(200);
    } finally {
      await running.stop();
      await api.close();
      await drop();
    }
  }, 120_000);

  it('kill -9 while following the parent chain, then restart: the same tables as a clean run', async () => {
    // a long parent chain with batches and confirmations spread over it: the follower takes many
    // steps of 2,000 blocks, and the kills land between and inside them
    await child.mine(6);
    for (let gap = 0; gap < 3; gap++) {
      // anvil mines a few hundred empty blocks a second: in slices under viem's request timeout
      for (let i = 0; i < 5; i++) await parent.mine(500);
      const p = await poster.calldata(2n, '0x00');
      posted.push({ ...p, container: 'in_calldata' });
      const last = (await child.public.getBlock({ blockNumber: p.next + SHIFT - 1n })).hash;
      confirmed.push({ childBlock: p.next + SHIFT - 1n, receipt: await confirmChildBlock(parent, contracts, last, `0x${'ef'.repeat(32)}`) });
    }
    // and a tail without batches: steps enough left after the timed kills for three aimed ones
    // (CI once saw a fast phase on PostgreSQL follow the whole chain before the second timed kill)
    for (let i = 0; i < 10; i++) await parent.mine(500);
    await nodeInterfaceKnows(child, posted);
    const target = await crashTarget(engine);
    const configFile = join(target.dataDir, '..', `arbitrum-${engine}-${Date.now()}.json`);
    writeFileSync(
      configFile,
      JSON.stringify({
        chains: [{ chainId: CHILD_CHAIN_ID, arbitrum: { rollup: contracts.rollup, parentRpcUrls: [parent.url], parentStartBlock: 0, messagesToBlocksShift: Number(SHIFT) } }],
      }),
    );
    const clean = await freshDatabase(engine);
    const spawnFollower = (env: Record<string, string> = {}) =>
      spawnIndexer({ chainId: CHILD_CHAIN_ID, rpcUrl: proxy.url, dataDir: target.dataDir, databaseUrl: target.databaseUrl, env: { EXPLORER_CONFIG: configFile, ...env } });
    const storedTip = async () => {
      const rows = await target.inspect((db) => db.query<{ n: string | null }>('SELECT indexed_block::text AS n FROM arbitrum_parent'));
      return rows?.[0]?.n == null ? null : BigInt(rows[0].n);
    };
    const head = await parent.public.getBlockNumber();
    try {
      // two kills at moments in time (start-up, the first steps)…
      let kills = 0;
      for (const delayMs of [0, 50]) {
        const p = spawnFollower();
        await p.waitForLog((l) => l.msg === 'following the parent chain', 60_000);
        await new Promise((r) => setTimeout(r, delayMs));
        const ended = await killHard(p);
        expect(ended.signal, p.output()).toBe('SIGKILL');
        kills++;
      }
      // …then kills aimed inside a step: at its debug line saying a parent range was read and is
      // not yet written. The stored tip below that range's end afterwards proves the kill landed
      // before the step's commit (a kill that came too late shows as the tip at or past it).
      let insideStep = 0;
      let afterCommit = 0;
      // the tip read after a kill is the next attempt's (on PGlite each read copies the data directory)
      let tip = await storedTip();
      for (let attempt = 0; attempt < 8 && insideStep < 3; attempt++) {
        if (tip === head) break;
        const p = spawnFollower({ LOG_LEVEL: 'debug' });
        const fetched = await p.waitForLog((l) => l.msg === 'parent range fetched', 60_000);
        const ended = await killHard(p);
        expect(ended.signal, p.output()).toBe('SIGKILL');
        kills++;
        const after = await storedTip();
        if (after === null || after < BigInt(fetched.to as string)) insideStep++;
        else afterCommit++;
        tip = after;
      }
      console.info(`arbitrum kill -9 on ${engine}: ${kills} kills, ${insideStep} inside a step (after its range was read, before its commit), ${afterCommit} just after a commit`);
      expect(insideStep).toBeGreaterThanOrEqual(1);
      const last = spawnFollower({ LOG_LEVEL: 'debug' });
      // its last step read, then caught up: the follower's tip is the parent's head (read from a
      // copy for PGlite, so not polled before that step)
      await last.waitForLog((l) => l.msg === 'parent range fetched' && l.to === head.toString(), 120_000);
      await waitFor(
        async () => {
          const tip = await target.inspect((db) => db.query<{ n: string }>('SELECT indexed_block::text AS n FROM arbitrum_parent'));
          return tip?.[0]?.n === head.toString() ? true : undefined;
        },
        () => `the restarted follower to reach parent block ${head}\n${last.output()}`,
        120_000,
        500,
      );
      await killHard(last);

      const run = await startArbitrumIndexer(clean.db, proxy.url, settlement);
      try {
        await followerCaughtUp(clean.db, parent);
      } finally {
        await run.stop();
      }
      const crashed = await target.inspect((db) => settlementTables(db));
      const expected = await settlementTables(clean.db);
      // the poll's head and safe block are whenever the last poll was; everything else must match
      const withoutPoll = (t: Awaited<ReturnType<typeof settlementTables>> | null) =>
        t && { ...t, parent: t.parent.map((r) => ({ ...(r as object), head_block: undefined, safe_block: undefined })) };
      expect(withoutPoll(crashed)).toEqual(withoutPoll(expected));
      // and the parent block hashes kept for finding a reorg's ancestor: the same steps were committed
      const checkpoints = (db: Database) => db.query(`SELECT number::text, encode(hash, 'hex') AS hash FROM arbitrum_parent_checkpoints ORDER BY chain_id, number`);
      expect(await target.inspect(checkpoints)).toEqual(await checkpoints(clean.db));
      expect(expected.batches.length).toBe(posted.length);
      expect(expected.confirmations.length).toBe(confirmed.length);
    } finally {
      await clean.drop();
      await target.drop();
    }
  }, 400_000);
});

describe.each(engines)('Arbitrum blocks whose batch the parent follower has not seen, on %s', (engine: Engine) => {
  let parent: TestNode;
  let child: TestNode;
  let proxy: Awaited<ReturnType<typeof startArbitrumChildProxy>>;
  let contracts: ParentRollup;
  let poster: BatchPoster;
  const posted: Posted[] = [];
  const confirmed: Confirmed[] = [];
  /** the follower starts after the first two batches */
  let parentStartBlock: bigint;

  let chains: Awaited<ReturnType<typeof startChains>> | undefined;

  beforeAll(async () => {
    chains = await startChains();
    ({ parent, child, proxy, contracts, poster } = chains);
    posted.push({ ...(await poster.calldata(3n, '0x00')), container: 'in_calldata' });
    posted.push({ ...(await poster.calldata(2n, '0x80')), container: 'in_anytrust' });
    parentStartBlock = (await parent.public.getBlockNumber()) + 1n;
    // posted by a contract right after the start: its lower neighbour is never seen, so its range
    // comes from the NodeInterface, not from its neighbours
    posted.push({ ...(await poster.throughContract(2n, '0x88')), container: 'in_anytrust', uncounted: true });
    posted.push({ ...(await poster.calldata(2n, '0x00')), container: 'in_calldata' });
  }, 120_000);

  afterAll(async () => {
    await chains?.stop();
  });

  const settlementFrom = (start: bigint): ArbitrumSettlementConfig => ({
    rollup: contracts.rollup.toLowerCase() as Hex, parentRpcUrls: [parent.url], parentStartBlock: start, messagesToBlocksShift: SHIFT,
  });

  it('they are Sealed on rollup with the NodeInterface\'s batch number, and move on as the parent chain says more', async () => {
    expect(posted[0]!.receipt.blockNumber).toBeLessThan(parentStartBlock);
    expect(posted[2]!.receipt.blockNumber).toBeGreaterThanOrEqual(parentStartBlock);
    // the node has sealed one more batch than the parent chain holds (the follower lags the sequencer)
    const lagging = { batch: poster.nextBatch, prev: posted.at(-1)!.next, next: posted.at(-1)!.next + 2n };
    await nodeInterfaceKnows(child, [...posted, lagging]);
    await withArbitrumIndex(engine, proxy.url, settlementFrom(parentStartBlock), async ({ db, api, running }) => {
      await running.caughtUp({ node: child.url });
      await followerCaughtUp(db, parent);
      let served = await expectAllBlocks(api, parent, child, posted, confirmed, parentStartBlock);
      // the statuses the chains' state gives, one block of each batch
      const at = (n: bigint) => served.get(n) as { status: string; batch_number: number | null; commitment_transaction: unknown };
      expect(at(2n)).toMatchObject({ status: 'Sealed on rollup', batch_number: 0, commitment_transaction: NO_TRANSACTION });
      expect(at(5n)).toMatchObject({ status: 'Sealed on rollup', batch_number: 1, commitment_transaction: NO_TRANSACTION });
      expect(at(6n)).toMatchObject({ status: 'Sent to base', batch_number: 2 });
      expect(at(10n)).toMatchObject({ status: 'Sealed on rollup', batch_number: Number(lagging.batch), commitment_transaction: NO_TRANSACTION });
      expect(at(12n).status).toBe('Processed on rollup');

      // the lagging batch reaches the parent chain: its blocks are sent, and the NodeInterface's row for it goes
      const sent = await poster.calldata(2n, '0x00');
      expect(sent.batch).toBe(lagging.batch);
      posted.push({ ...sent, container: 'in_calldata' });
      await followerCaughtUp(db, parent);
      served = await expectAllBlocks(api, parent, child, posted, confirmed, parentStartBlock);
      expect(at(10n)).toMatchObject({ status: 'Sent to base', batch_number: Number(sent.batch) });
      const unseen = posted.filter((p) => p.receipt.blockNumber < parentStartBlock);
      const rows = await db.query<{ b: string; f: string; l: string }>(
        'SELECT batch_number::text AS b, first_block::text AS f, last_block::text AS l FROM arbitrum_sealed_batches ORDER BY batch_number',
      );
      expect(rows).toEqual(unseen.map((p) => ({ b: p.batch.toString(), f: (p.prev + SHIFT).toString(), l: (p.next + SHIFT - 1n).toString() })));

      // a confirmation covers sealed blocks too: confirmed, their commitment still unknown
      const hash = (await child.public.getBlock({ blockNumber: 9n })).hash;
      confirmed.push({ childBlock: 9n, receipt: await confirmChildBlock(parent, contracts, hash, `0x${'12'.repeat(32)}`) });
      await followerCaughtUp(db, parent);
      served = await expectAllBlocks(api, parent, child, posted, confirmed, parentStartBlock);
      expect(at(2n)).toMatchObject({ status: 'Confirmed on base', batch_number: 0, commitment_transaction: NO_TRANSACTION });
    });
  }, 240_000);

  it('a child node without a NodeInterface: one info line, and those blocks get no batch number', async () => {
    await removeNodeInterface(child);
    await withArbitrumIndex(engine, proxy.url, settlementFrom(parentStartBlock), async ({ db, api, running }) => {
      await running.caughtUp({ node: child.url });
      await followerCaughtUp(db, parent);
      const noInterface = (e: { msg?: string }) => e.msg?.startsWith('no NodeInterface on the child node') === true;
      await waitFor(async () => (running.logger.entries.some(noInterface) ? true : undefined), () => 'the no-NodeInterface line', 20_000);
      const served = await expectAllBlocks(api, parent, child, posted, confirmed, parentStartBlock);
      expect((served.get(12n) as { status: string }).status).toBe('Processed on rollup');
      // blocks 1..9 are confirmed; none has a batch number from the parent's unseen batches
      expect((served.get(2n) as { batch_number: number | null }).batch_number).toBeNull();
      await new Promise((r) => setTimeout(r, 500));
      expect(running.logger.entries.filter(noInterface)).toHaveLength(1);
      expect(await db.query('SELECT 1 FROM arbitrum_sealed_batches')).toEqual([]);
    });
  }, 120_000);
});

/** The kind's tables, in key order, without what only says when a poll happened. */
async function settlementTables(db: Database) {
  return {
    batches: await db.query(
      `SELECT batch_number::text, first_block::text, last_block::text, range_from_neighbours, range_from_node, data_container, encode(tx_hash, 'hex') AS tx,
              parent_block::text, parent_timestamp::text FROM arbitrum_batches ORDER BY chain_id, batch_number`,
    ),
    confirmations: await db.query(
      `SELECT parent_block::text, log_index, last_block::text, encode(block_hash, 'hex') AS block_hash, encode(send_root, 'hex') AS root,
              encode(tx_hash, 'hex') AS tx, parent_timestamp::text FROM arbitrum_confirmations ORDER BY chain_id, parent_block, log_index`,
    ),
    sealed: await db.query(
      `SELECT batch_number::text, first_block::text, last_block::text FROM arbitrum_sealed_batches ORDER BY chain_id, batch_number`,
    ),
    parent: await db.query(
      `SELECT parent_chain_id::text, encode(sequencer_inbox, 'hex') AS inbox, encode(outbox, 'hex') AS outbox, indexed_block::text,
              encode(indexed_hash, 'hex') AS hash, head_block::text, safe_block::text FROM arbitrum_parent ORDER BY chain_id`,
    ),
  };
}
