/**
 * API benchmark: one big token (10M holders), 10,000 small tokens, 1M blocks over 100 miners,
 * bulk-loaded into a throwaway PostgreSQL database; then, in one run,
 *   - server-side time per request (Fastify's reply.elapsedTime: routing, auth, rate limit,
 *     validation, query, view, serialization) for the top page and deep pages of both operations,
 *     and the page query alone;
 *   - HTTP throughput under load (autocannon) against a bare Fastify route serving the same
 *     bytes from memory, so the ratio is what our code costs on this machine;
 *   - holders at past blocks over a synthetic balance history (lib/history-bench.ts, issue 13).
 *
 *   npm run bench:api                      full size (loading takes minutes)
 *   npm run bench:api -- --tiny            20k holders, 20k blocks, 2 s of load (the test suite runs it)
 *   npm run bench:api -- --holders 1000000 --blocks 100000
 *   npm run bench:api -- --keep            keep the database; --database <url> measures it again
 *   npm run bench:api -- --labels          every holder of the big token (up to 1M) gets an operator
 *                                          label (name, 2 public tags, 2 metadata tags) and an ENS name,
 *                                          timed against an unlabelled twin token (lib/label-bench.ts);
 *                                          the twin copies every holder: meant for --holders 1000000
 */
import { join, relative } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildServer } from '../src/api/server.js';
import { deepOverTopByWorkingSet } from './lib/depth-working-set.js';
import { loadHistory, measureHistory } from './lib/history-bench.js';
import { labelHolders, labelledOverPlain, loadTwinToken, type PagePair } from './lib/label-bench.js';
import { phaseMedians, phaseRecorder, type PhaseSample } from './lib/phases.js';
import { loadConfig } from '../src/config/config.js';
import { openDatabase, type Database } from '../src/db/client.js';
import { apiConfig } from '../test/support/api.js';
import { freshDatabase } from '../test/support/databases.js';
import { addressOf, loadApiData, type DataSize } from './lib/api-data.js';
import { buildTargets, holderTargets, PAGE, type Target } from './lib/api-targets.js';
import { withClient } from './lib/pg-client.js';
import { readFlags } from './lib/args.js';
import { httpLoad, type LoadResult } from './lib/http-load.js';
import { logger, machineInfo, mergeResults, quietGates, RESULTS_DIR, resultsPath } from './lib/results.js';
import { median, percentile, round, summary } from './lib/stats.js';
import { cpuMeter, procCpuMs } from './lib/cpu.js';
import { apiServerProcess } from './lib/server-process.js';

const { sizes, tiny, options } = readFlags(
  { holders: 10_000_000, tokens: 10_000, blocks: 1_000_000, miners: 100, samples: 2_000, runs: 3, loadSeconds: 10, connections: 10 },
  { holders: 20_000, tokens: 50, blocks: 20_000, miners: 100, samples: 200, runs: 1, loadSeconds: 2, connections: 10 },
  { out: { type: 'string' }, keep: { type: 'boolean' }, database: { type: 'string' }, 'no-wait': { type: 'boolean' }, 'cpu-prof': { type: 'boolean' }, labels: { type: 'boolean' } },
);
const log = logger('bench:api');
const command = `npm run bench:api${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;

async function main() {
  const machine = await machineInfo({ postgresUrl: (options.database as string | undefined) ?? (await adminUrl()) });
  const { url, size, drop } = await prepareDatabase();
  const db = await openDatabase({ databaseUrl: url });
  // Latency is measured with the page cache off: every request reads the database, which is
  // what the targets are about. Throughput is measured both ways; `cached` runs the cache as a
  // deployment does by default (EXPLORER_PAGE_CACHE_MS).
  const app = await buildServer({ db, api: apiConfig({ pageCacheMs: 0 }) });
  const phases = phaseRecorder(app);
  try {
    const targets = await buildTargets(db, url, size, log);
    const quiet = quietGates(!tiny && !options['no-wait'], log);
    // issue 11's bound: the big token's pages labelled against an unlabelled twin's (label-bench.ts)
    const twinTargets = options.labels ? await labelsAndTwin(db, url, size, targets) : null;

    const runs: Array<Record<string, ReturnType<typeof summary> & { query_p50: number; query_p99: number; phases_p50_ms: ReturnType<typeof phaseMedians> }>> = [];
    for (let run = 1; run <= sizes.runs; run++) {
      await quiet.before(`latency run ${run}`);
      const perTarget: (typeof runs)[number] = {};
      for (const target of targets) {
        const requests = await timeRequests(app, target, phases);
        const queries = await timeQueries(target);
        perTarget[target.name] = {
          ...summary(requests.map((r) => r.elapsed)),
          query_p50: round(percentile(queries, 50)),
          query_p99: round(percentile(queries, 99)),
          phases_p50_ms: phaseMedians(requests),
        };
        const t = perTarget[target.name]!;
        log(`run ${run}: ${target.name.padEnd(22)} p50 ${t.p50} ms, p99 ${t.p99} ms (query alone p50 ${t.query_p50} ms; phases p50 ${JSON.stringify(t.phases_p50_ms)})`);
      }
      runs.push(perTarget);
    }
    const labels = twinTargets === null ? null : await labelledOverPlain(app, twinTargets, phases, quiet, sizes, log);
    await quiet.before('history');
    const history = await measureHistory(app, db, url, size, { repeats: tiny ? 10 : 30, pages: tiny ? 5 : 30 }, log);

    const holdersTargets = targets.filter((t) => t.name.startsWith('holders'));
    const byWorkingSet = await deepOverTopByWorkingSet(app, phases, holdersTargets[0]!.paths, holdersTargets.slice(1), quiet, sizes, log);
    const floor = await latencyFloor(app, db, targets);
    log(`floor: ${JSON.stringify(floor)}`);
    const load = await measureThroughput(targets, url, quiet);
    const explain = await explainAll(db, targets);
    const prepared = await preparedProbe(url, targets);

    const names = targets.map((t) => t.name);
    const latency = Object.fromEntries(
      names.map((name) => {
        const of = (k: 'p50' | 'p99' | 'query_p50' | 'query_p99') => round(median(runs.map((r) => r[name]![k])));
        const phase = (k: keyof ReturnType<typeof phaseMedians>) => round(median(runs.map((r) => r[name]!.phases_p50_ms[k])));
        const phases_p50_ms = { before_handler: phase('before_handler'), handler: phase('handler'), serialize: phase('serialize'), send: phase('send') };
        return [name, { p50_ms: of('p50'), p99_ms: of('p99'), query_p50_ms: of('query_p50'), query_p99_ms: of('query_p99'), phases_p50_ms, runs: runs.map((r) => r[name]) }];
      }),
    );
    const holderNames = names.filter((n) => n.startsWith('holders'));
    const blockTargets = names.filter((n) => n.startsWith('blocks'));
    const worst = (list: string[], k: 'p50' | 'p99') => round(median(runs.map((r) => Math.max(...list.map((n) => r[n]![k])))));
    // per run, the deepest page's median over the top page's, then the median over runs
    const deepOverTop = round(
      median(runs.map((r) => Math.max(...holderNames.slice(1).map((n) => r[n]!.p50)) / r[holderNames[0]!]!.p50)),
      2,
    );

    const result = {
      holders_p50_ms: worst(holderNames, 'p50'),
      holders_p99_ms: worst(holderNames, 'p99'),
      deep_over_top: deepOverTop,
      deep_over_top_by_working_set: byWorkingSet,
      blocks_p50_ms: worst(blockTargets, 'p50'),
      blocks_p99_ms: worst(blockTargets, 'p99'),
      throughput_ratio: load.holders_ratio,
      throughput_ratio_uncached: load.holders_ratio_uncached,
      blocks_throughput_ratio: load.blocks_ratio,
      blocks_throughput_ratio_uncached: load.blocks_ratio_uncached,
      page_cache_ms: loadConfig({}, {}).api.pageCacheMs,
      ...(labels === null ? {} : { labels }),
      history,
      note:
        'p50/p99 are the worst of the targets of each operation (top and deep pages), medians over runs; server-side time is reply.elapsedTime ' +
        'with the page cache off (every request reads the database); throughput_ratio is with the default page cache, throughput_ratio_uncached without',
      size: { ...size, page: PAGE },
      latency,
      load,
      explain,
      prepared_statement_probe: prepared,
      floor,
      quiet: quiet.summary(),
      runs: sizes.runs,
      samples_per_target: sizes.samples,
      machine,
      command,
    };
    const path = resultsPath(tiny, options.out as string | undefined);
    await mergeResults(path, 'api', result, { machine, command });
    log(
      `holders p50 ${result.holders_p50_ms} ms p99 ${result.holders_p99_ms} ms, deep/top ${result.deep_over_top}; blocks p50 ${result.blocks_p50_ms} ms ` +
        `p99 ${result.blocks_p99_ms} ms; throughput ratio ${result.throughput_ratio} with the page cache, ${result.throughput_ratio_uncached} without`,
    );
    log(`wrote ${path}`);
  } finally {
    await app.close();
    await db.close();
    await drop();
  }
}

async function adminUrl() {
  const { POSTGRES_ADMIN_URL } = await import('../test/support/databases.js');
  return POSTGRES_ADMIN_URL;
}

/** A fresh throwaway database, loaded; or the one given by --database, as a previous --keep left it. */
async function prepareDatabase(): Promise<{ url: string; size: DataSize; drop: () => Promise<void> }> {
  const given = options.database as string | undefined;
  if (given) {
    const size = await withClient(given, async (c) => (await c.query<{ size: DataSize }>('SELECT size FROM bench_meta')).rows[0]!.size);
    log(`measuring the existing database ${given} (${JSON.stringify(size)})`);
    return { url: given, size, drop: async () => undefined };
  }
  const size: DataSize = { holders: sizes.holders, tokens: sizes.tokens, blocks: sizes.blocks, miners: sizes.miners };
  const fresh = await freshDatabase('postgres');
  // the pool is reopened by main(); this one only held the migration
  await fresh.db.close();
  const url = fresh.url!;
  const cleanup = async () => {
    if (options.keep) return log(`kept the database: --database ${url}`);
    const admin = new pg.Client({ connectionString: await adminUrl() });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${new URL(url).pathname.slice(1)}" WITH (FORCE)`);
    await admin.end();
  };
  process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));
  const started = Date.now();
  try {
    await loadApiData(url, size, log);
    await loadHistory(url, size, log);
    await withClient(url, (c) => c.query('CREATE TABLE bench_meta AS SELECT $1::jsonb AS size', [JSON.stringify(size)]));
  } catch (error) {
    await cleanup();
    throw error;
  }
  log(`loaded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { url, size, drop: cleanup };
}

/** The unlabelled twin's pages at the big token's depths, then the big token's holders labelled (label-bench.ts). */
async function labelsAndTwin(db: Database, url: string, size: DataSize, targets: Target[]): Promise<PagePair[]> {
  const token = await withClient(url, (c) => addressOf(c, 'token', 0));
  const twin = await holderTargets(db, await loadTwinToken(url, token, log), size);
  await labelHolders(db, token, log);
  return twin.map((t) => ({ depth: t.name, labelled: targets.find((l) => l.name === t.name)!.paths, plain: t.paths }));
}

/** Sequential requests, so each one's time is its own and not a queue's. */
async function timeRequests(app: FastifyInstance, target: Target, phases: ReturnType<typeof phaseRecorder>): Promise<PhaseSample[]> {
  const warmup = Math.min(200, sizes.samples);
  phases.take();
  for (let i = 0; i < warmup + sizes.samples; i++) {
    const res = await app.inject({ method: 'GET', url: target.paths[i % target.paths.length]! });
    if (res.statusCode !== 200) throw new Error(`${target.name}: status ${res.statusCode}: ${res.body.slice(0, 200)}`);
    if (i < target.paths.length && (JSON.parse(res.body) as { items: unknown[] }).items.length !== PAGE) {
      throw new Error(`${target.name}: page not full`);
    }
  }
  return phases.take().slice(warmup);
}

/**
 * What any handler pays on this machine before its own work: a bare Fastify route injecting the
 * same response bytes, and one prepared `SELECT 1` round trip through the same pool.
 */
async function latencyFloor(app: FastifyInstance, db: Database, targets: Target[]) {
  const bare = Fastify({ logger: false });
  const bodies = new Map<string, Buffer>();
  for (const t of targets) bodies.set(t.name, (await app.inject({ method: 'GET', url: t.paths[0]! })).rawPayload);
  bare.get('/:name', (request, reply) => reply.type('application/json; charset=utf-8').send(bodies.get((request.params as { name: string }).name)));
  const bareTimes = phaseRecorder(bare);
  const result: Record<string, number> = {};
  for (const name of ['holders_top', 'blocks_top']) {
    bareTimes.take();
    for (let i = 0; i < Math.min(200, sizes.samples) + sizes.samples; i++) await bare.inject({ method: 'GET', url: `/${name}` });
    result[`bare_route_${name}_p50_ms`] = round(percentile(bareTimes.take().slice(Math.min(200, sizes.samples)).map((s) => s.elapsed), 50));
  }
  await bare.close();
  const trips: number[] = [];
  for (let i = 0; i < Math.min(200, sizes.samples) + sizes.samples; i++) {
    const t = performance.now();
    await db.query('SELECT $1::int AS x', [i], { prepare: true });
    trips.push(performance.now() - t);
  }
  result.select_1_round_trip_p50_ms = round(percentile(trips.slice(Math.min(200, sizes.samples)), 50));
  return result;
}

async function timeQueries(target: Target): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < Math.min(200, sizes.samples) + sizes.samples; i++) {
    const t = performance.now();
    await target.queries[i % target.queries.length]!();
    times.push(performance.now() - t);
  }
  return times.slice(Math.min(200, sizes.samples));
}

/**
 * Requests per second at `connections` concurrent connections, each operation's top page
 * against a bare Fastify route sending that very response body from memory, alternated so a
 * slow moment of the machine hits both sides; our server with the page cache off and on.
 */
async function measureThroughput(targets: Target[], databaseUrl: string, quiet: ReturnType<typeof quietGates>) {
  // Each server in a process of its own, as built code (lib/api-server.ts), the way `explorer
  // serve` runs: the page cache off (every request reads the database), and on as a deployment
  // runs it by default (EXPLORER_PAGE_CACHE_MS).
  const profileDir = options['cpu-prof'] ? join(RESULTS_DIR, 'profiles', `api-load-${new Date().toISOString().replace(/[:.]/g, '-')}`) : undefined;
  const servers = {
    uncached: await apiServerProcess(databaseUrl, apiConfig({ pageCacheMs: 0 }), profileDir && join(profileDir, 'uncached')),
    cached: await apiServerProcess(databaseUrl, apiConfig({ pageCacheMs: loadConfig({}, {}).api.pageCacheMs }), profileDir && join(profileDir, 'cached')),
  };
  const bare = Fastify({ logger: false });
  const bodies = new Map<string, Buffer>();
  const picks = ['holders_top', 'blocks_top'].map((name) => targets.find((t) => t.name === name)!);
  for (const target of picks) {
    const res = await fetch(servers.uncached.base + target.paths[0]!);
    if (res.status !== 200) throw new Error(`${target.name}: status ${res.status}`);
    bodies.set(target.paths[0]!.split('?')[0]!, Buffer.from(await res.arrayBuffer()));
  }
  bare.get('/*', (request, reply) => {
    const body = bodies.get(request.url.split('?')[0]!);
    if (!body) return reply.code(404).send();
    return reply.type('application/json; charset=utf-8').send(body);
  });
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const bases = { bare: `http://127.0.0.1:${(bare.server.address() as { port: number }).port}`, uncached: servers.uncached.base, cached: servers.cached.base };
  const pids = { bare: process.pid, uncached: servers.uncached.pid, cached: servers.cached.pid };
  // bare first, then the server, per operation and round
  const sides = ['bare', 'uncached', 'cached'] as const;
  const key = (side: (typeof sides)[number], t: Target) => (side === 'uncached' ? t.name : `${side}_${t.name}`);
  try {
    const opts = { connections: sizes.connections, seconds: sizes.loadSeconds };
    const warm = { connections: sizes.connections, seconds: Math.max(1, Math.round(sizes.loadSeconds / 5)) };
    for (const t of picks) for (const side of sides) await httpLoad(bases[side] + t.paths[0], warm);
    const meter = await cpuMeter(databaseUrl);
    type Round = Record<string, LoadResult & { node_cpu_ms_per_request?: number; postgres_cpu_ms_per_request?: number }>;
    const rounds: Round[] = [];
    // With --cpu-prof the servers are profiled throughout (node --cpu-prof, written as they stop).
    for (let run = 1; run <= sizes.runs; run++) {
      await quiet.before(`load run ${run}`);
      const r: Round = {};
      for (const t of picks) {
        for (const side of sides) {
          const measured = await meter.measure(() => httpLoad(bases[side] + t.paths[0], opts), pids[side]);
          const n = measured.result.requests_total;
          r[key(side, t)] = { ...measured.result, node_cpu_ms_per_request: round(measured.nodeMs / n), postgres_cpu_ms_per_request: round(measured.postgresMs / n) };
        }
        const [b, u, c] = sides.map((side) => r[key(side, t)]!);
        log(
          `run ${run}: ${t.name} ${u!.requests_per_s} req/s uncached (p99 ${u!.latency_p99_ms} ms; CPU per request ${u!.node_cpu_ms_per_request} ms node, ` +
            `${u!.postgres_cpu_ms_per_request} ms PostgreSQL), ${c!.requests_per_s} req/s with the page cache, bare ${b!.requests_per_s} req/s; ${u!.bytes_per_request} bytes each`,
        );
      }
      rounds.push(r);
    }
    await meter.close();
    const ratio = (name: string) => round(median(rounds.map((r) => r[name]!.requests_per_s / r[`bare_${name}`]!.requests_per_s)), 3);
    const med = (name: string, k: keyof Round[string]) => median(rounds.map((r) => r[name]![k] ?? Number.NaN));
    return {
      connections: sizes.connections,
      seconds: sizes.loadSeconds,
      holders_ratio: round(median(rounds.map((r) => r.cached_holders_top!.requests_per_s / r.bare_holders_top!.requests_per_s)), 3),
      holders_ratio_uncached: ratio('holders_top'),
      blocks_ratio: round(median(rounds.map((r) => r.cached_blocks_top!.requests_per_s / r.bare_blocks_top!.requests_per_s)), 3),
      blocks_ratio_uncached: ratio('blocks_top'),
      ...Object.fromEntries(
        Object.keys(rounds[0]!).map((name) => [
          name,
          {
            requests_per_s: med(name, 'requests_per_s'),
            latency_p50_ms: med(name, 'latency_p50_ms'),
            latency_p99_ms: med(name, 'latency_p99_ms'),
            bytes_per_request: med(name, 'bytes_per_request'),
            node_cpu_ms_per_request: med(name, 'node_cpu_ms_per_request'),
            postgres_cpu_ms_per_request: med(name, 'postgres_cpu_ms_per_request'),
          },
        ]),
      ),
      profiles: profileDir === undefined ? null : relative(join(RESULTS_DIR, '..', '..'), profileDir),
      rounds,
    };
  } finally {
    await bare.close();
    await Promise.all([servers.uncached.stop(), servers.cached.stop()]);
  }
}

/** The first statement of each target under EXPLAIN ANALYZE: the plan shape and the server's own time. */
async function explainAll(db: Database, targets: Target[]) {
  const out: Record<string, { execution_ms: number; planning_ms: number; plan: string[] }> = {};
  for (const t of targets) {
    const s = t.statements[t.statements.length - 1]!;
    const rows = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${s.text}`, s.args);
    const lines = rows.map((r) => r['QUERY PLAN']);
    const time = (label: string) => Number(lines.find((l) => l.startsWith(label))?.match(/([\d.]+) ms/)?.[1] ?? Number.NaN);
    out[t.name] = { execution_ms: time('Execution Time'), planning_ms: time('Planning Time'), plan: lines };
  }
  return out;
}

/**
 * What the page statements cost on the PostgreSQL side, as sent today (unnamed: parsed and
 * planned on every call) and as a named prepared statement would be (the plan cached per
 * connection): same SQL and parameters, one connection, sequential, with that backend's CPU time.
 */
async function preparedProbe(url: string, targets: Target[]) {
  return withClient(url, async (client) => {
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const out: Record<string, Record<string, number>> = {};
    for (const t of targets) {
      const row: Record<string, number> = {};
      for (const mode of ['unnamed', 'prepared'] as const) {
        const n = sizes.samples;
        const times: number[] = [];
        const cpuBefore = await procCpuMs(pid);
        for (let i = 0; i < n + 50; i++) {
          const s = t.statements[i % t.statements.length]!;
          const started = performance.now();
          await client.query(mode === 'prepared' ? { name: `bench_${t.name}`, text: s.text, values: s.args } : { text: s.text, values: s.args });
          if (i >= 50) times.push(performance.now() - started);
        }
        row[`${mode}_p50_ms`] = round(percentile(times, 50));
        row[`${mode}_p99_ms`] = round(percentile(times, 99));
        row[`${mode}_postgres_cpu_ms_per_query`] = round(((await procCpuMs(pid)) - cpuBefore) / (n + 50));
      }
      out[t.name] = row;
      log(`prepared-statement probe ${t.name}: ${JSON.stringify(row)}`);
    }
    return out;
  });
}

await main();
