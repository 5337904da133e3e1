/**
 * One indexing run of bench:index, in its own process so that the RSS it samples is the
 * indexer's alone (not anvil's client, the chain generator's state or the other engine's).
 * Runs the real ChainIndexer from block 0 to `head`, as `explorer index` builds it (behind the
 * chain's writer lock, whose fence is in every transaction on PostgreSQL), and reports to the
 * parent over IPC.
 */
import { setMaxListeners } from 'node:events';
import { chainConfig } from '../src/config/config.js';
import { chainRpcClient } from '../src/indexer/chain-rpc.js';
import type { ChainSettings } from '../src/config/settings.js';
import { openDatabase, type Database, type Queryable } from '../src/db/client.js';
import { ensureChain } from '../src/db/queries/chains.js';
import { ChainIndexer } from '../src/indexer/chain-indexer.js';
import { boundHeapGrowth } from '../src/indexer/heap-growth.js';
import type { Logger } from '../src/indexer/logger.js';
import { cpuMeter, profiled } from './lib/cpu.js';
import { IndexerWithoutHistory } from './lib/indexer-without-history.js';
import { IndexerWithoutTransferCounts } from './lib/indexer-without-transfer-counts.js';
import { IndexerWithoutBackfill } from './lib/indexer-without-backfill.js';
import { IndexerWithoutParts } from './lib/indexer-without-parts.js';
import { saveProfile } from './lib/profiles.js';
import { fenceInStatements } from './lib/fence-in-statements.js';
import { takeWriterLock } from '../src/indexer/writer-lock.js';
import { rootSettings } from '../src/config/settings.js';

export interface WorkerConfig {
  engine: 'postgres' | 'pglite';
  databaseUrl?: string;
  dataDir?: string;
  rpcUrl: string;
  chainId: number;
  head: string;
  /** CPU-profile the indexing (written under bench/results/profiles, summarised in the result) */
  profile: boolean;
  /** per-chain settings other than the defaults (the RPC budget of a remote run) */
  chain?: Partial<ChainSettings>;
  /** the baseline a cost flag compares with: no balance history (--history-cost), no backfill path (--backfill-cost), no token parts (--parts-cost), no transfer counts (--transfer-count-cost), the writer's fence in statements of its own (--fence-cost) */
  baseline?: 'without-history' | 'without-backfill' | 'without-parts' | 'without-transfer-counts' | 'fence-in-statements';
}

export interface WorkerResult {
  ms: number;
  blocks: number;
  transfers: number;
  peakRssMb: number;
  /** RSS (MB) when the indexer had done 25, 50, 75 and 100% of the blocks */
  rssAtProgressMb: number[];
  /** every 100 ms: [ms since start, rss MB, last indexed block] */
  samples: Array<[number, number, number]>;
  /**
   * process.memoryUsage() (MB) at the sample with the highest RSS: what of it is the JS heap,
   * what external (Buffers, ArrayBuffers; PGlite's WASM memory is neither, it is in rss alone)
   */
  memoryAtPeakMb: { rss: number; heapTotal: number; heapUsed: number; external: number; arrayBuffers: number };
  /** rows with a positive balance at the end, to check against the generator's state */
  positiveBalances: number;
  /** time the indexer spent waiting on the database (its writer is sequential, so these add up) */
  dbMs: number;
  /** balance rows upserted: the batches' net changes per (token, holder, id) */
  deltaRows: number;
  /** CPU time of this process (PGlite included, when it is the engine) */
  nodeCpuMs: number;
  /** CPU time of the PostgreSQL backends serving the indexer's database */
  postgresCpuMs: number | null;
  /** CPU time of the node while the run lasted (filled in by the parent) */
  anvilCpuMs?: number;
  /** that time per statement (first words of its SQL), largest first */
  statements: Array<{ sql: string; calls: number; ms: number }>;
  /** balance_intervals at the end: rows and bytes (table, its indexes) */
  history: { rows: number; tableBytes: number; indexBytes: number };
  profile: Awaited<ReturnType<typeof saveProfile>> | null;
}

const config = JSON.parse(process.argv[2]!) as WorkerConfig;
const head = BigInt(config.head);
const quiet = (level: string) => (obj: Record<string, unknown>, msg?: string) => console.error(`[indexer ${level}] ${msg ?? ''} ${JSON.stringify(obj)}`);
const logger: Logger = { debug() {}, info() {}, warn: quiet('warn'), error: quiet('error') };

// as startIndexers (src/indexer/run.ts) sets it for `explorer index` and `explorer start`
boundHeapGrowth();
const raw = await openDatabase(config.engine === 'postgres' ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir });
await ensureChain(raw, config.chainId);

// Where the writer's time goes, without touching the indexer: every statement it sends is timed.
const statements = new Map<string, { calls: number; ms: number }>();
let dbMs = 0;
const timed = async <T>(label: string, work: () => Promise<T>, top: boolean): Promise<T> => {
  const t = performance.now();
  try {
    return await work();
  } finally {
    const ms = performance.now() - t;
    if (top) dbMs += ms;
    const entry = statements.get(label) ?? { calls: 0, ms: 0 };
    entry.calls++;
    entry.ms += ms;
    statements.set(label, entry);
  }
};
const label = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 70);
const timedTx = (tx: Queryable): Queryable => ({ query: (text, params) => timed(label(text), () => tx.query(text, params), false) });
const timedDb: Database = {
  engine: raw.engine,
  query: (text, params) => timed(label(text), () => raw.query(text, params), true),
  transaction: (fn, options) => timed('(transaction: BEGIN … COMMIT)', () => raw.transaction((tx) => fn(timedTx(tx)), options), true),
  exec: (sql) => raw.exec(sql),
  close: () => raw.close(),
  ...(raw.openSession ? { openSession: () => raw.openSession!() } : {}),
};
const chain = chainConfig(config.chainId, [config.rpcUrl], config.chain);
const rpc = chainRpcClient(chain, logger);

const controller = new AbortController();
setMaxListeners(0, controller.signal);
// the chain's writer lock, as src/indexer/run.ts takes it: on PostgreSQL its fence is in every transaction
const leaseMs = rootSettings.writerLeaseMs.default;
const lock = (await takeWriterLock(timedDb, config.chainId, logger, controller.signal, leaseMs))!;
const db = config.baseline === 'fence-in-statements' ? await fenceInStatements(timedDb, config.chainId, leaseMs) : lock.db;
const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
const samples: WorkerResult['samples'] = [];
let indexed = -1;
let blocks = 0;
let transfers = 0;
let deltaRows = 0;
let finished = 0;
const started = performance.now();
let memoryAtPeakMb: WorkerResult['memoryAtPeakMb'] = { rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 };
const sample = () => {
  const usage = process.memoryUsage();
  samples.push([Math.round(performance.now() - started), mb(usage.rss), indexed]);
  if (mb(usage.rss) > memoryAtPeakMb.rss) {
    const { rss, heapTotal, heapUsed, external, arrayBuffers } = usage;
    memoryAtPeakMb = { rss: mb(rss), heapTotal: mb(heapTotal), heapUsed: mb(heapUsed), external: mb(external), arrayBuffers: mb(arrayBuffers) };
  }
};
const timer = setInterval(sample, 100);

const BASELINES = {
  'without-history': IndexerWithoutHistory,
  'without-backfill': IndexerWithoutBackfill,
  'without-parts': IndexerWithoutParts,
  'without-transfer-counts': IndexerWithoutTransferCounts,
  // (the indexer as it is, over the fence of lib/fence-in-statements.ts above)
  'fence-in-statements': ChainIndexer,
} as const;
const Indexer = config.baseline === undefined ? ChainIndexer : BASELINES[config.baseline];
const indexer = new Indexer({
  db,
  rpc,
  chain,
  logger,
  onBatch: ({ batch }) => {
    deltaRows += batch.deltas.length;
    blocks += batch.blocks.length;
    transfers += batch.transfers;
    indexed = Number(batch.to);
    if (batch.to >= head) {
      finished = performance.now();
      controller.abort();
    }
  },
});
let profile: WorkerResult['profile'] = null;
const run = async () => {
  if (!config.profile) return indexer.run(controller.signal);
  const { profile: p } = await profiled(() => indexer.run(controller.signal));
  profile = await saveProfile(`index-${config.engine}`, p);
};
const meter = config.databaseUrl ? await cpuMeter(config.databaseUrl) : null;
const cpu = process.cpuUsage();
const measured = meter ? await meter.measure(run) : await run().then(() => null);
const { user, system } = process.cpuUsage(cpu);
await meter?.close();
sample();
clearInterval(timer);

const at = (fraction: number) => samples.find(([, , block]) => block >= Number(head) * fraction)?.[1] ?? Number.NaN;
const [{ n }] = (await raw.query<{ n: string }>('SELECT count(*)::text AS n FROM token_balances WHERE value > 0')) as [{ n: string }];
const [kept] = await raw.query<{ rows: string; table_bytes: string; index_bytes: string }>(
  // over every partition (migration 024): the parent itself holds nothing
  `SELECT (SELECT count(*) FROM balance_intervals)::text AS rows, sum(pg_relation_size(relid))::text AS table_bytes,
          sum(pg_indexes_size(relid))::text AS index_bytes
   FROM pg_partition_tree('balance_intervals') WHERE isleaf`,
);
await lock.release();
await db.close();

const result: WorkerResult = {
  ms: finished - started,
  blocks,
  transfers,
  peakRssMb: Math.max(...samples.map(([, rss]) => rss)),
  rssAtProgressMb: [0.25, 0.5, 0.75, 1].map(at),
  samples,
  memoryAtPeakMb,
  positiveBalances: Number(n),
  dbMs,
  deltaRows,
  history: { rows: Number(kept!.rows), tableBytes: Number(kept!.table_bytes), indexBytes: Number(kept!.index_bytes) },
  nodeCpuMs: (user + system) / 1000,
  postgresCpuMs: measured?.postgresMs ?? null,
  statements: [...statements.entries()]
    .map(([sql, v]) => ({ sql, calls: v.calls, ms: Math.round(v.ms) }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 12),
  profile,
};
process.send!(result, () => process.exit(0));
