/**
 * Indexer benchmark: an anvil chain of ≥ 200,000 ERC-20 transfers over 50 tokens and 20,000
 * holders, mined by several validators (src/devnet generateBulk); then, in one run,
 *   (a) the fetch ceiling: a bare loop pulling the same blocks (with transactions) and receipts
 *       (with the logs) over batched JSON-RPC as fast as the node gives them, and the same through
 *       the project's chain layer (src/rpc and src/evm) without any database;
 *   (b) the real ChainIndexer indexing block 0 → head into PostgreSQL, and
 *   (c) into PGlite (a file data directory, the default engine),
 *   (d) a remote node: the same node behind a proxy adding 50 ms to every request, indexed into
 *       PostgreSQL with an RPC budget (requests in flight, calls per batch, calls per second)
 *       and fetched by the bare loop under the same budget, `--runs` such pairs
 *       (`index.remote_fetch_ratio`: the median pair's),
 * each indexing run in a child process that samples its own RSS every 100 ms.
 *
 *   npm run bench:index                       full size
 *   npm run bench:index -- --tiny             a few thousand transfers (the test suite runs it)
 *   npm run bench:index -- --transfers 600000 a longer chain (does RSS grow with it?)
 *   npm run bench:index -- --cpu-prof         also CPU-profile one extra (uncounted) indexing run per engine
 *   npm run bench:index -- --history-cost     also index each run without the balance history, on both
 *                                             engines, alternating which goes first (`history_cost`)
 *   npm run bench:index -- --backfill-cost    the same pairs against the indexer without the backfill path (`backfill_cost`)
 *   npm run bench:index -- --parts-cost       the same pairs, PostgreSQL only, against the backfill writing each batch in one
 *                                             transaction, not in token parts; the remote pairs too (`parts_cost`)
 *   npm run bench:index -- --transfer-count-cost  the same pairs, both engines, against the indexer counting no token's transfers
 *                                             (`transfer_count_cost`)
 *   npm run bench:index -- --fence-cost       the same pairs, PostgreSQL only, against the writer lock's fence in statements of its
 *                                             own in each transaction; the remote pairs too (`fence_cost`)
 *   npm run bench:index -- --no-remote        skip (d)
 */
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Address } from 'viem';
import { openDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { connectDevnet, deriveAddress, generateBulk, startAnvil, type BulkResult } from '../src/devnet/index.js';
import { freshDatabase, POSTGRES_ADMIN_URL } from '../test/support/databases.js';
import { startFaultProxy } from '../test/support/fault-proxy.js';
import { RequestBudget } from '../src/rpc/request-budget.js';
import type { ChainSettings } from '../src/config/settings.js';
import { readFlags } from './lib/args.js';
import { childPid, procCpuMs } from './lib/cpu.js';
import { logger, machineInfo, mergeResults, quietGates, resultsPath } from './lib/results.js';
import { median, round } from './lib/stats.js';
import type { WorkerConfig, WorkerResult } from './index-worker.js';
import { bundleWorker } from './lib/worker-bundle.js';
import { bareFetch, chainLayerFetch, eventsPerS, nodeHasTraces, perS, tuneBareFetch } from './lib/bare-fetch.js';

const { sizes, tiny, options } = readFlags(
  { transfers: 200_000, tokens: 50, holders: 20_000, perTx: 100, txsPerBlock: 2, miners: 8, runs: 3 },
  { transfers: 5_000, tokens: 5, holders: 1_000, perTx: 50, txsPerBlock: 2, miners: 4, runs: 1 },
  { out: { type: 'string' }, 'no-wait': { type: 'boolean' }, 'cpu-prof': { type: 'boolean' }, 'history-cost': { type: 'boolean' }, 'backfill-cost': { type: 'boolean' }, 'parts-cost': { type: 'boolean' }, 'transfer-count-cost': { type: 'boolean' }, 'fence-cost': { type: 'boolean' }, 'no-remote': { type: 'boolean' } },
);
const log = logger('bench:index');
const command = `npm run bench:index${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
const here = dirname(fileURLToPath(import.meta.url));
/** the indexing child, run as compiled JavaScript (lib/worker-bundle.ts) */
const worker = bundleWorker(here, 'index-worker.ts');
const CHAIN_ID = 31337;
/**
 * A paid provider 50 ms away: 8 requests in flight, 40 calls a request, 400 calls a second
 * (each call of a batch counted, as providers count them).
 */
const REMOTE = { latencyMs: 50, rpcConcurrency: 8, rpcBatchSize: 40, rpcRequestsPerSecond: 400 } as const;
/** an indexing run that takes longer than this has stalled */
const RUN_TIMEOUT_MS = 30 * 60_000;

async function main() {
  const machine = await machineInfo({ postgresUrl: POSTGRES_ADMIN_URL });
  const anvil = await startAnvil({ chainId: CHAIN_ID });
  anvilPid = await childPid(anvil.pid, 'anvil');
  try {
    const { chain, head } = await generateChain(anvil.url);
    const quiet = quietGates(!tiny && !options['no-wait'], log);
    await quiet.before('bare fetch tuning');

    const bareGrid = await tuneBareFetch(anvil.url, head, log);
    const best = bareGrid[0]!;
    const bare: number[] = [];
    const bareCpu: Array<{ node: number; anvil: number }> = [];
    const layerCpu: Array<{ node: number; anvil: number }> = [];
    const layer: number[] = [];
    const postgres: WorkerResult[] = [];
    const pglite: WorkerResult[] = [];
    // the baseline each measured run is paired with, if a cost is asked for
    const flagged = (['history', 'backfill', 'parts', 'transferCount', 'fence'] as const).find((c) => options[COSTS[c].flag] === true);
    const cost = flagged === undefined ? null : COSTS[flagged];
    const baseline = { postgres: [] as WorkerResult[], pglite: [] as WorkerResult[] };
    const loads: number[][] = [];
    // Profiling slows what it watches: the profiled runs come first and are not counted.
    const profiles = options['cpu-prof']
      ? { postgres: (await indexRun('postgres', anvil.url, head, chain, true)).profile, pglite: (await indexRun('pglite', anvil.url, head, chain, true)).profile }
      : null;
    // With a pair to measure, one uncounted run per engine first: in this session's three paired
    // runs the first pair alone favoured whichever side went second (0.934, 0.912, 0.90; the
    // later pairs 0.93-1.05), as if the bench's first indexing run paid for something of its own.
    if (cost && !tiny) {
      await quiet.before('warm-up');
      for (const engine of cost.engines) log(`warm-up (not counted): ${engine} ${perS(chain.transfers, (await indexRun(engine, anvil.url, head, chain, false)).ms)} ev/s`);
    }
    for (let run = 1; run <= sizes.runs; run++) {
      await quiet.before(`run ${run}`);
      const fetched = await withCpu(() => bareFetch(anvil.url, head, best));
      bare.push(eventsPerS(fetched.result));
      bareCpu.push(fetched.usPerEvent(fetched.result.events));
      const viaLayer = await withCpu(() => chainLayerFetch(anvil.url, head, CHAIN_ID));
      layer.push(eventsPerS(viaLayer.result));
      layerCpu.push(viaLayer.usPerEvent(viaLayer.result.events));
      // the indexer and its baseline back to back, the first of the pair alternating by run, so a
      // drift in the machine's load does not favour one side
      const measuredFirst = run % 2 === 1;
      for (const [engine, kept] of [['postgres', postgres], ['pglite', pglite]] as const) {
        const paired = cost !== null && (cost.engines as readonly string[]).includes(engine);
        if (paired && !measuredFirst) baseline[engine].push(await indexRun(engine, anvil.url, head, chain, false, undefined, cost.baseline));
        kept.push(await indexRun(engine, anvil.url, head, chain, false));
        if (paired && measuredFirst) baseline[engine].push(await indexRun(engine, anvil.url, head, chain, false, undefined, cost.baseline));
      }
      loads.push(loadavg().map((l) => round(l, 2)));
      if (cost) {
        const pair = (engine: 'postgres' | 'pglite', kept: WorkerResult[]) =>
          `${engine} ${perS(kept.at(-1)!.transfers, kept.at(-1)!.ms)} with / ${perS(baseline[engine].at(-1)!.transfers, baseline[engine].at(-1)!.ms)} without ${cost.what}`;
        const pairs = cost.engines.map((engine) => pair(engine, engine === 'postgres' ? postgres : pglite));
        log(`run ${run} ${cost.what} cost: ${pairs.join(', ')} ev/s; load average ${loads.at(-1)!.join(' ')}`);
      }
      log(
        `run ${run}: bare fetch ${bare.at(-1)} ev/s, chain layer ${layer.at(-1)} ev/s, ` +
          `PostgreSQL ${perS(postgres.at(-1)!.transfers, postgres.at(-1)!.ms)} ev/s (peak ${postgres.at(-1)!.peakRssMb} MB, ${Math.round((postgres.at(-1)!.dbMs / postgres.at(-1)!.ms) * 100)}% in the database), ` +
          `PGlite ${perS(pglite.at(-1)!.transfers, pglite.at(-1)!.ms)} ev/s (peak ${pglite.at(-1)!.peakRssMb} MB)`,
      );
    }

    await quiet.before('remote node');
    const remote = options['no-remote'] ? null : await remoteRun(anvil.url, head, chain, sizes.runs, cost === COSTS.parts || cost === COSTS.fence ? cost.baseline : undefined);
    if (remote) log(`remote (${REMOTE.latencyMs} ms, ${REMOTE.rpcConcurrency} in flight, ${REMOTE.rpcBatchSize} calls a request, ${REMOTE.rpcRequestsPerSecond} calls/s): ${JSON.stringify(remote)}`);

    const engine = (runs: WorkerResult[]) => ({
      events_per_s: median(runs.map((r) => perS(r.transfers, r.ms))),
      blocks_per_s: median(runs.map((r) => perS(r.blocks, r.ms))),
      seconds: round(median(runs.map((r) => r.ms / 1000)), 2),
      peak_rss_mb: Math.max(...runs.map((r) => r.peakRssMb)),
      db_share: round(median(runs.map((r) => r.dbMs / r.ms)), 3),
      balance_rows_per_s: median(runs.map((r) => perS(r.deltaRows, r.ms))),
      balance_rows_per_transfer: round(runs[0]!.deltaRows / runs[0]!.transfers, 2),
      // CPU per transfer event, by process: what the 2 cores are spent on
      cpu_us_per_event: {
        indexer: round(median(runs.map((r) => (r.nodeCpuMs * 1000) / r.transfers)), 1),
        postgres: runs[0]!.postgresCpuMs === null ? null : round(median(runs.map((r) => (r.postgresCpuMs! * 1000) / r.transfers)), 1),
        anvil: round(median(runs.map((r) => ((r.anvilCpuMs ?? 0) * 1000) / r.transfers)), 1),
      },
      statements_first_run: runs[0]!.statements,
      rss_at_25_50_75_100_percent_mb: runs[0]!.rssAtProgressMb,
      // the RSS peak split into the JS heap and external memory (PGlite's WASM memory is external)
      memory_at_peak_mb: runs.reduce((a, r) => (r.peakRssMb > a.peakRssMb ? r : a)).memoryAtPeakMb,
      runs: runs.map((r) => ({ events_per_s: perS(r.transfers, r.ms), blocks_per_s: perS(r.blocks, r.ms), seconds: round(r.ms / 1000, 2), peak_rss_mb: r.peakRssMb })),
    });
    const pg = engine(postgres);
    const bareMedian = median(bare);
    const result = {
      events_per_s: pg.events_per_s,
      fetch_ratio: round(median(postgres.map((r, i) => perS(r.transfers, r.ms) / bare[i]!)), 3),
      peak_rss_mb: pg.peak_rss_mb,
      pglite_fetch_ratio: round(median(pglite.map((r, i) => perS(r.transfers, r.ms) / bare[i]!)), 3),
      pglite_peak_rss_mb: Math.max(...pglite.map((r) => r.peakRssMb)),
      remote_fetch_ratio: remote?.ratio ?? null,
      remote,
      blocks_per_s: pg.blocks_per_s,
      postgres: pg,
      pglite: engine(pglite),
      bare_fetch: { events_per_s: bareMedian, runs: bare, cpu_us_per_event: medianCpu(bareCpu), best: best.config, grid: bareGrid.map((g) => ({ ...g.config, events_per_s: eventsPerS(g) })) },
      chain_layer_fetch: { events_per_s: median(layer), runs: layer, cpu_us_per_event: medianCpu(layerCpu), ratio_to_bare: round(median(layer) / bareMedian, 3) },
      history_cost: cost === COSTS.history ? { postgres: historyCost(postgres, baseline.postgres), pglite: historyCost(pglite, baseline.pglite), load_average_1_5_15_after_each_run: loads } : null,
      backfill_cost:
        cost === COSTS.backfill ? { postgres: backfillCost(postgres, baseline.postgres), pglite: backfillCost(pglite, baseline.pglite), load_average_1_5_15_after_each_run: loads } : null,
      parts_cost: cost === COSTS.parts ? { postgres: pairedRates(postgres, baseline.postgres, 'parts'), remote: remote?.runs ?? null, load_average_1_5_15_after_each_run: loads } : null,
      fence_cost: cost === COSTS.fence ? { postgres: pairedRates(postgres, baseline.postgres, 'fence_in_begin_commit'), remote: remote?.runs ?? null, load_average_1_5_15_after_each_run: loads } : null,
      transfer_count_cost:
        cost === COSTS.transferCount
          ? { postgres: pairedRates(postgres, baseline.postgres, 'counts'), pglite: pairedRates(pglite, baseline.pglite, 'counts'), load_average_1_5_15_after_each_run: loads }
          : null,
      chain,
      profiles,
      quiet: quiet.summary(),
      runs: sizes.runs,
      note: 'events are ERC-20 Transfer logs; every indexing run starts from an empty database; RSS is the indexer process alone (child process)',
      machine,
      command,
    };
    const path = resultsPath(tiny, options.out as string | undefined);
    await mergeResults(path, 'index', result, { machine, command });
    log(`PostgreSQL ${result.events_per_s} events/s (${result.fetch_ratio} × bare fetch ${bareMedian}), peak RSS ${result.peak_rss_mb} MB; PGlite ${result.pglite.events_per_s} events/s`);
    log(`wrote ${path}`);
  } finally {
    await anvil.stop();
  }
}

/** What a cost flag pairs each measured run with, and how its results name the two sides. */
const COSTS = {
  history: { flag: 'history-cost', baseline: 'without-history', what: 'history', engines: ['postgres', 'pglite'] },
  backfill: { flag: 'backfill-cost', baseline: 'without-backfill', what: 'backfill', engines: ['postgres', 'pglite'] },
  // PGlite writes every batch in one transaction either way
  parts: { flag: 'parts-cost', baseline: 'without-parts', what: 'parts', engines: ['postgres'] },
  transferCount: { flag: 'transfer-count-cost', baseline: 'without-transfer-counts', what: 'transfer counts', engines: ['postgres', 'pglite'] },
  // PGlite has no writer lock (its data directory's lock keeps other processes out)
  fence: { flag: 'fence-cost', baseline: 'fence-in-statements', what: 'fence', engines: ['postgres'] },
} as const;

/** The indexer against its baseline (runs paired by index): medians, their ratio, each pair's ratio, the rates. */
function pairedRates(kept: WorkerResult[], without: WorkerResult[], what: string) {
  const rate = (r: WorkerResult) => perS(r.transfers, r.ms);
  const withRate = median(kept.map(rate));
  const withoutRate = median(without.map(rate));
  return {
    [`with_${what}_events_per_s`]: withRate,
    [`without_${what}_events_per_s`]: withoutRate,
    ratio: round(withRate / withoutRate, 3),
    ratio_per_pair: kept.map((r, i) => round(rate(r) / rate(without[i]!), 3)),
    [`with_${what}_runs`]: kept.map(rate),
    [`without_${what}_runs`]: without.map(rate),
    db_share: { [`with_${what}`]: round(median(kept.map((r) => r.dbMs / r.ms)), 3), [`without_${what}`]: round(median(without.map((r) => r.dbMs / r.ms)), 3) },
  };
}

/** The backfill path against the indexer without it: the rates and each side's peak RSS. */
function backfillCost(kept: WorkerResult[], without: WorkerResult[]) {
  return { ...pairedRates(kept, without, 'backfill'), peak_rss_mb: { with_backfill: kept.map((r) => r.peakRssMb), without_backfill: without.map((r) => r.peakRssMb) } };
}

/**
 * Indexing with the balance history against without it (runs paired by index): medians, their
 * ratio, and what the history took on disk per kept change (table + indexes).
 */
function historyCost(kept: WorkerResult[], without: WorkerResult[]) {
  const h = kept[0]!.history;
  return {
    ...pairedRates(kept, without, 'history'),
    kept_changes: h.rows,
    bytes_per_kept_change: { table: round(h.tableBytes / h.rows, 1), indexes: round(h.indexBytes / h.rows, 1), total: round((h.tableBytes + h.indexBytes) / h.rows, 1) },
    without_history_rows: without[0]!.history.rows,
  };
}

/** The chain: bulk transfers with the coinbase rotating over `miners` validators block by block. */
async function generateChain(url: string) {
  const client = await connectDevnet(url, { chainId: CHAIN_ID });
  const miners = Array.from({ length: sizes.miners }, (_, i) => deriveAddress('bench-miner', i));
  let coinbase: Promise<void> = client.setCoinbase(miners[0]!);
  let lastLog = 0;
  log(`generating ${sizes.transfers.toLocaleString('en-US')} transfers over ${sizes.tokens} tokens and ${sizes.holders.toLocaleString('en-US')} holders`);
  const bulk: BulkResult = await generateBulk(client, {
    transfers: sizes.transfers,
    tokens: sizes.tokens,
    holders: sizes.holders,
    transfersPerTx: sizes.perTx,
    txsPerBlock: sizes.txsPerBlock,
    seed: 'bench',
    onProgress: ({ transfers, blocks }) => {
      // Chained so the switches stay in order; each lands before the next block is mined,
      // since sending that block's transactions takes longer than one RPC call.
      const next: Address = miners[blocks % miners.length]!;
      coinbase = coinbase.then(() => client.setCoinbase(next));
      if (Date.now() - lastLog > 5_000) {
        lastLog = Date.now();
        log(`  ${transfers.toLocaleString('en-US')} transfers in ${blocks} blocks`);
      }
    },
  });
  await coinbase;
  const head = await client.public.getBlockNumber();
  const distinctMiners = new Set<string>();
  for (let n = bulk.fromBlock; n <= head; n += 1n) distinctMiners.add((await client.public.getBlock({ blockNumber: n })).miner);
  const chain = {
    transfers: bulk.transfers,
    tokens: bulk.tokens.length,
    holders: bulk.holders.length,
    positive_balances: bulk.tokens.reduce((a, t) => a + t.holders, 0),
    blocks: Number(head) + 1,
    transactions: bulk.transactions,
    miners: distinctMiners.size,
    generation_s: round(bulk.elapsedMs / 1000, 1),
  };
  log(`chain: ${JSON.stringify(chain)}`);
  return { chain, head };
}

/**
 * Through a proxy that adds REMOTE.latencyMs to every request: the bare loop (blocks, receipts
 * and, where the node has them, traces: what the indexer asks for each block) under the same
 * budget the indexer gets, then the indexer into PostgreSQL with that budget; `runs` such pairs,
 * back to back, the ratio being the median of the pairs' (a run lasts seconds, so one pair is
 * at the mercy of whatever else the machine does in those seconds).
 */
async function remoteRun(url: string, head: bigint, chain: { transfers: number; positive_balances: number }, runs: number, baseline?: WorkerConfig['baseline']) {
  const proxy = await startFaultProxy({ target: url, latencyMs: REMOTE.latencyMs });
  try {
    const traces = await nodeHasTraces(url);
    const callsPerBlock = traces ? 3 : 2;
    const blocksPerRequest = Math.max(1, Math.floor(REMOTE.rpcBatchSize / callsPerBlock));
    const pairs: Array<Awaited<ReturnType<typeof remotePair>>> = [];
    for (let run = 1; run <= runs; run++) {
      pairs.push(await remotePair(proxy, head, chain, { blocksPerRequest, traces, baseline, baselineFirst: run % 2 === 0 }));
      log(`remote run ${run}: ${JSON.stringify(pairs.at(-1))}`);
    }
    const middle = pairs.find((p) => p.ratio === median(pairs.map((q) => q.ratio)))!;
    return { ...middle, budget: { ...REMOTE, calls_per_block: callsPerBlock, traces }, runs: pairs };
  } finally {
    await proxy.close();
  }
}

/** One bare loop, then one indexing run, through the proxy and under the same budget. */
async function remotePair(
  proxy: Awaited<ReturnType<typeof startFaultProxy>>,
  head: bigint,
  chain: { transfers: number; positive_balances: number },
  { blocksPerRequest, traces, baseline, baselineFirst }: { blocksPerRequest: number; traces: boolean; baseline?: WorkerConfig['baseline'] | undefined; baselineFirst?: boolean },
) {
  // a fresh budget per run: neither side starts with the other's bucket drained
  const budget = new RequestBudget({ concurrency: REMOTE.rpcConcurrency, callsPerSecond: REMOTE.rpcRequestsPerSecond, maxBatchCalls: REMOTE.rpcBatchSize, holdMs: 250 });
  const bare = await bareFetch(proxy.url, head, { config: { blocksPerRequest, concurrency: REMOTE.rpcConcurrency } }, { budget, traces });
  const settings: Partial<ChainSettings> = { rpcConcurrency: REMOTE.rpcConcurrency, rpcBatchSize: REMOTE.rpcBatchSize, rpcRequestsPerSecond: REMOTE.rpcRequestsPerSecond };
  // with a baseline (--parts-cost, --fence-cost), it too, under the same budget, first in every other pair
  const withBaseline = () => (baseline ? indexRun('postgres', proxy.url, head, chain, false, settings, baseline) : Promise.resolve(null));
  const before = baselineFirst ? await withBaseline() : null;
  proxy.resetStats();
  const ours = await indexRun('postgres', proxy.url, head, chain, false, settings);
  const stats = proxy.stats();
  const other = before ?? (await withBaseline());
  return {
    ratio: round(perS(ours.transfers, ours.ms) / eventsPerS(bare), 3),
    events_per_s: perS(ours.transfers, ours.ms),
    bare_events_per_s: eventsPerS(bare),
    seconds: round(ours.ms / 1000, 2),
    bare_seconds: round(bare.ms / 1000, 2),
    peak_rss_mb: ours.peakRssMb,
    db_share: round(ours.dbMs / ours.ms, 3),
    proxy_saw: { requests: stats.requests, max_in_flight: stats.maxInFlight, max_calls_per_second: stats.maxCallsPerSecond },
    load_average_1_5_15: loadavg().map((l) => round(l, 2)),
    ...(other && baseline ? { [`${baseline.replaceAll('-', '_')}_events_per_s`]: perS(other.transfers, other.ms), [`over_${baseline.replaceAll('-', '_')}`]: round(other.ms / ours.ms, 3) } : {}),
  };
}

/** `work`'s CPU time in this process and in anvil, per event */
async function withCpu<T>(work: () => Promise<T>) {
  const anvilBefore = await anvilCpuMs();
  const before = process.cpuUsage();
  const result = await work();
  const { user, system } = process.cpuUsage(before);
  const anvilMs = (await anvilCpuMs()) - anvilBefore;
  return { result, usPerEvent: (events: number) => ({ node: (user + system) / events, anvil: (anvilMs * 1000) / events }) };
}

const medianCpu = (runs: Array<{ node: number; anvil: number }>) => ({
  node: round(median(runs.map((r) => r.node)), 1),
  anvil: round(median(runs.map((r) => r.anvil)), 1),
});

let anvilPid = 0;
/** anvil's own CPU time (its supervising shell's child), to show what serving the chain costs */
async function anvilCpuMs(): Promise<number> {
  return procCpuMs(anvilPid);
}

async function indexRun(
  engine: 'postgres' | 'pglite',
  rpcUrl: string,
  head: bigint,
  chain: { transfers: number; positive_balances: number },
  profile: boolean,
  settings?: Partial<ChainSettings>,
  baseline?: WorkerConfig['baseline'],
): Promise<WorkerResult> {
  const config: WorkerConfig = { engine, rpcUrl, chainId: CHAIN_ID, head: head.toString(), profile, ...(baseline ? { baseline } : {}), ...(settings ? { chain: settings } : {}) };
  let cleanup: () => Promise<void>;
  if (engine === 'postgres') {
    const fresh = await freshDatabase('postgres');
    await fresh.db.close();
    config.databaseUrl = fresh.url!;
    cleanup = async () => {
      const { default: pg } = await import('pg');
      const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS "${new URL(fresh.url!).pathname.slice(1)}" WITH (FORCE)`);
      await admin.end();
    };
  } else {
    const dir = await mkdtemp(join(tmpdir(), 'bench-pglite-'));
    const db = await openDatabase({ dataDir: dir });
    await migrate(db);
    await db.close();
    config.dataDir = dir;
    cleanup = () => rm(dir, { recursive: true, force: true });
  }
  try {
    const anvilBefore = await anvilCpuMs();
    // (a profiled run keeps the sources, so its profile names our files)
    const [workerFile, execArgv] = config.profile ? [join(here, 'index-worker.ts'), ['--import', 'tsx']] : [await worker, ['--enable-source-maps']];
    const result = await new Promise<WorkerResult>((resolve, reject) => {
      const child = fork(workerFile, [JSON.stringify(config)], {
        execArgv,
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      const timeout = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
      let answer: WorkerResult | undefined;
      child.on('message', (m) => (answer = m as WorkerResult));
      child.on('error', reject);
      child.on('exit', (code) => {
        clearTimeout(timeout);
        if (answer && code === 0) resolve(answer);
        else reject(new Error(`${engine} indexing run exited with ${code} before reporting`));
      });
    });
    result.anvilCpuMs = (await anvilCpuMs()) - anvilBefore;
    if (result.transfers !== chain.transfers || result.positiveBalances !== chain.positive_balances) {
      throw new Error(
        `${engine}: indexed ${result.transfers} transfers and ${result.positiveBalances} balances, the chain has ${chain.transfers} and ${chain.positive_balances}`,
      );
    }
    return result;
  } finally {
    await cleanup();
  }
}

await main();
