/**
 * Measurement (issue 13): where the balance history's indexing cost goes, on either engine. The
 * backfill's balance write as the indexer does it (write-balances.ts, a chain's own partitions,
 * db/chain-partitions.ts) over bench:index's shape, with the history (`applyBlockChanges`) and
 * without it (the same statement without its history part, as bench/lib/indexer-without-history
 * writes), then the hand-over (`finishBackfill`) with each index build and ANALYZE timed; then,
 * on the chain with history, the interval page index built again over a copy of the intervals
 * in that index's order, which tells the sort's share of the build.
 *
 *   npx tsx bench/prototypes/history-cost.ts [--engine pglite|postgres] [--rounds 2]
 *
 * PGlite in a data directory on disk, as the service runs it; PostgreSQL a fresh database.
 * Each round runs both variants, alternating which goes first. BENCHMARKS.md, "The history's
 * cost, taken apart".
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase, type Database } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { applyBalanceDeltas, applyBlockChanges } from '../../src/db/queries/write-balances.js';
import { hexArray } from '../../src/db/hex.js';
import { BalanceSum } from '../../src/indexer/balance-sum.js';
import { finishBackfill, startBackfill } from '../../src/db/chain-partitions.js';
import { address, skewed, syntheticBatches } from './synthetic-chain.js';
import { freshDatabase } from '../../test/support/databases.js';

const { values: args } = parseArgs({ options: { engine: { type: 'string', default: 'pglite' }, rounds: { type: 'string', default: '2' } } });
const SHAPE = { tokens: 50, holders: 20_000, transfers: 200_000, blocks: 1_038, batches: 12 } as const;
const CHAIN = 77;
const ms = (t0: number) => Math.round(performance.now() - t0);

async function open(): Promise<{ db: Database; drop: () => Promise<void> }> {
  if (args.engine === 'postgres') return freshDatabase('postgres');
  const dir = await mkdtemp(join(tmpdir(), 'history-cost-'));
  const db = await openDatabase({ dataDir: join(dir, 'pgdata') });
  await migrate(db);
  return { db, drop: async () => { await db.close(); await rm(dir, { recursive: true, force: true }); } };
}

/** Times each statement of the hand-over by the index it builds (or the table it analyzes). */
function timedStatements(db: Database, into: Record<string, number>): Database {
  const timed = Object.create(db) as Database;
  timed.query = (async (sql: string, ...rest: unknown[]) => {
    const t0 = performance.now();
    try {
      return await (db.query as (...a: unknown[]) => Promise<unknown>)(sql, ...rest);
    } finally {
      const named = /INDEX IF NOT EXISTS (\S+)|^(ANALYZE \S+)/.exec(sql);
      if (named) into[named[1] ?? named[2]!] = ms(t0);
    }
  }) as Database['query'];
  return timed;
}

async function run(history: boolean, batches: ReturnType<typeof syntheticBatches>) {
  const { db, drop } = await open();
  try {
    await db.query(`INSERT INTO tokens (chain_id, address, type) SELECT $1, decode(a, 'hex'), 'ERC-20' FROM unnest($2::text[]) AS a`, [CHAIN, hexArray(Array.from({ length: SHAPE.tokens }, (_, t) => address(t, 'aa')))]);
    await db.transaction((tx) => startBackfill(tx, CHAIN));
    const t0 = performance.now();
    for (const changes of batches) {
      const sums = BalanceSum.of(changes);
      await db.transaction(async (tx) => {
        if (history) await applyBlockChanges(tx, CHAIN, sums.changed());
        else await applyBalanceDeltas(tx, CHAIN, changes.at(-1)!.blockNumber, sums.nonZero());
      });
    }
    const write = ms(t0);
    const builds: Record<string, number> = {};
    const t1 = performance.now();
    await finishBackfill(timedStatements(db, builds), CHAIN);
    const handOver = ms(t1);
    const [n] = await db.query<{ n: string }>('SELECT count(*)::text AS n FROM balance_intervals');
    let presorted: { copy_ms: number; page_index_ms: number } | null = null;
    if (history) {
      // the page index as the migrations define it (its copy on the default partition), over a copy in its order
      const [index] = await db.query<{ def: string }>("SELECT pg_get_indexdef('balance_intervals_page'::regclass) AS def");
      const using = index!.def.slice(index!.def.indexOf(' USING '));
      const keys = /^ USING btree \((.*?)\)(?: INCLUDE|$)/.exec(using)![1]!;
      const t2 = performance.now();
      await db.query(`CREATE TABLE sorted AS SELECT * FROM balance_intervals WHERE chain_id = ${CHAIN} ORDER BY ${keys}`);
      const copy = ms(t2);
      const t3 = performance.now();
      await db.query(`CREATE INDEX sorted_page ON sorted${using}`);
      presorted = { copy_ms: copy, page_index_ms: ms(t3) };
    }
    return { write_ms: write, hand_over_ms: handOver, builds, intervals: Number(n!.n), presorted };
  } finally {
    await drop();
  }
}

const batches = syntheticBatches(SHAPE, skewed);
for (let r = 0; r < Number(args.rounds); r++) {
  for (const history of r % 2 === 0 ? [true, false] : [false, true]) {
    console.log(JSON.stringify({ engine: args.engine, round: r, history, ...(await run(history, batches)) }));
  }
}
