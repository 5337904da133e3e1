/**
 * Prototype for issue 14 item 1 (the backfill path), measured before it is built: what a
 * balance change costs the database when it is written as today (one upsert per changed key,
 * per batch, with the intervals it closes), against an append-only log folded in bulk.
 *
 *   npx tsx bench/prototypes/backfill-fold.ts [--engine postgres|pglite] [--folds 2] [--rounds 3] [--variants today,deferred,merged] [--out file]
 *
 * Each round runs every variant once, in a rotated order (the machine's speed drifts); the
 * figures are each variant's median over the rounds.
 *
 * The chain is synthetic, shaped like bench:index's (200,000 ERC-20 transfers over 50 tokens and
 * 20,000 holders in 1,038 blocks, written in 12 batches; a fifth of them mints, the rest move
 * half a holder's balance, so nothing goes negative). Both variants start from an empty
 * migrated database and must end with the same balances, intervals and holder counts, which the
 * run checks (a digest of each table) before it reports anything.
 *
 * - `today`: write-balances.ts applyBlockChanges, one transaction per batch.
 * - `fold`: each batch appended, as its per-block changes, to an unindexed log table; every
 *   `batches / folds` batches the log is folded: the intervals its changes close come from one
 *   window pass over the log (joined to the live rows it continues), and token_balances is
 *   rebuilt as a new table (the old rows merged with the log's sums, written without any index),
 *   its four indexes built in bulk, then swapped in by rename; holder counts are recounted.
 *   In a built design the rebuild is per chain (a partition per chain, attached in place of the
 *   old one), so other chains' rows are neither copied nor locked for more than the swap.
 *   It swaps the unpartitioned table by rename, so it runs only on the schema before migration
 *   024 (its figures in BENCHMARKS.md were measured there); `--variants` leaves it out by default.
 *
 * - `deferred`: today's write, with the indexes only pages read (token_balances_page,
 *   token_balances_by_holder, balance_intervals_page, balance_intervals_key) dropped before the
 *   first batch and built in bulk after the last: what deferring them through an initial
 *   backfill would save. The key index the upsert needs stays. (Built: src/db/chain-partitions.ts.)
 * - `merged`: the log as in `fold`, then every `batches / folds` batches today's write over all of
 *   them at once (a key changed in several batches upserted once): no gain, so not built.
 *
 * A prototype: its SQL is not the indexer's, and nothing in src/ uses it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase, type Database, type Queryable } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { applyBlockChanges, type BlockDelta } from '../../src/db/queries/write-balances.js';
import { hexArray, ZERO_ADDRESS_BYTEA } from '../../src/db/hex.js';
import { BalanceSum } from '../../src/indexer/balance-sum.js';
import { freshDatabase } from '../../test/support/databases.js';
import { address, syntheticBatches } from './synthetic-chain.js';
import { writeFileSync } from 'node:fs';

const { values: args } = parseArgs({
  options: { engine: { type: 'string', default: 'postgres' }, folds: { type: 'string', default: '2' }, rounds: { type: 'string', default: '3' }, out: { type: 'string' }, variants: { type: 'string' } },
});
const engine = args.engine === 'pglite' ? 'pglite' : 'postgres';
const FOLDS = Number(args.folds);
const ROUNDS = Number(args.rounds);
const SHAPE = { tokens: 50, holders: 20_000, transfers: 200_000, blocks: 1_038, batches: 12 } as const;
const CHAIN = 1;

async function openEngine(): Promise<{ db: Database; close: () => Promise<void> }> {
  if (engine === 'postgres') {
    const fresh = await freshDatabase('postgres');
    return { db: fresh.db, close: fresh.drop };
  }
  const dir = await mkdtemp(join(tmpdir(), 'fold-proto-'));
  const db = await openDatabase({ dataDir: dir });
  await migrate(db);
  return { db, close: async () => { await db.close(); await rm(dir, { recursive: true, force: true }); } };
}

async function seedTokens(db: Queryable) {
  await db.query(
    `INSERT INTO tokens (chain_id, address, type) SELECT $1, decode(a, 'hex'), 'ERC-20' FROM unnest($2::text[]) AS a`,
    [CHAIN, hexArray(Array.from({ length: SHAPE.tokens }, (_, t) => address(t, 'aa')))],
  );
}

const LOG_TABLE = `CREATE TABLE backfill_log (chain_id bigint NOT NULL, block_number bigint NOT NULL, token bytea NOT NULL,
  holder bytea NOT NULL, token_id numeric(78,0), delta numeric(78,0) NOT NULL)`;

async function appendToLog(db: Queryable, changes: readonly BlockDelta[]) {
  await db.query(
    `INSERT INTO backfill_log SELECT $1, u.block_number, decode(u.token, 'hex'), decode(u.holder, 'hex'), u.token_id, u.delta
     FROM unnest($2::text[], $3::text[], $4::numeric[], $5::bigint[], $6::numeric[]) AS u(token, holder, token_id, block_number, delta)`,
    [CHAIN, hexArray(changes.map((c) => c.token)), hexArray(changes.map((c) => c.holder)), changes.map(() => null),
      changes.map((c) => c.blockNumber.toString()), changes.map((c) => c.delta.toString())],
  );
}

/** The intervals the log's changes close: each change ends the value before it. */
const FOLD_INTERVALS = `
  INSERT INTO balance_intervals (chain_id, token, holder, token_id, value, from_block, to_block)
  SELECT $1, token, holder, token_id, before, from_block, block_number FROM (
    SELECT l.token, l.holder, l.token_id, l.block_number,
           coalesce(b.value, 0) + sum(l.delta) OVER w - l.delta AS before,
           coalesce(lag(l.block_number) OVER w, b.block_number) AS from_block
    FROM backfill_log l
    LEFT JOIN token_balances b ON b.chain_id = $1 AND b.token = l.token AND b.holder = l.holder AND b.token_id IS NOT DISTINCT FROM l.token_id
    WHERE l.chain_id = $1
    WINDOW w AS (PARTITION BY l.token, l.holder, l.token_id ORDER BY l.block_number)
  ) c
  WHERE before > 0 AND from_block < block_number AND holder <> ${ZERO_ADDRESS_BYTEA}
  ORDER BY token, holder, token_id, block_number`;

/** The live rows again, merged with the log's sums, into a table without indexes. */
const FOLD_BALANCES = `
  INSERT INTO token_balances_next (chain_id, token, holder, token_id, value, block_number, prev_block)
  SELECT $1, coalesce(b.token, s.token), coalesce(b.holder, s.holder), coalesce(b.token_id, s.token_id),
         coalesce(b.value, 0) + coalesce(s.delta, 0), coalesce(s.block_number, b.block_number), b.block_number
  FROM (SELECT * FROM token_balances WHERE chain_id = $1) b
  FULL JOIN (SELECT token, holder, token_id, sum(delta) AS delta, max(block_number) AS block_number
             FROM backfill_log WHERE chain_id = $1 GROUP BY token, holder, token_id) s
    ON s.token = b.token AND s.holder = b.holder AND coalesce(s.token_id, -1) = coalesce(b.token_id, -1)
  ORDER BY 2, 3, 4`;

/** How the migrations built a table's indexes, as the catalog has them, by name. */
async function indexDefinitions(db: Queryable, table: string): Promise<Map<string, string>> {
  const rows = await db.query<{ indexname: string; indexdef: string }>('SELECT indexname, indexdef FROM pg_indexes WHERE tablename = $1', [table]);
  return new Map(rows.map((r) => [r.indexname, r.indexdef]));
}

/**
 * token_balances_next gets token_balances' indexes, built in bulk under names of its own; once
 * the old table is dropped they take the old names, and the unique key index becomes the
 * constraint the upsert names again.
 */
async function buildIndexesAndSwap(tx: Queryable, phases: Phases) {
  const indexes = await indexDefinitions(tx, 'token_balances');
  await timed(phases, 'fold_index_builds', async () => {
    for (const [name, definition] of indexes) {
      await tx.query(definition.replace(`INDEX ${name} ON public.token_balances `, `INDEX ${name}_next ON public.token_balances_next `));
    }
  });
  await timed(phases, 'fold_swap', async () => {
    await tx.query('DROP TABLE token_balances');
    await tx.query('ALTER TABLE token_balances_next RENAME TO token_balances');
    for (const name of indexes.keys()) await tx.query(`ALTER INDEX ${name}_next RENAME TO ${name}`);
    await tx.query('ALTER TABLE token_balances ADD CONSTRAINT token_balances_key UNIQUE USING INDEX token_balances_key');
  });
}

const RECOUNT = `
  UPDATE tokens t SET holder_count = coalesce(c.n, 0)
  FROM tokens t2 LEFT JOIN (SELECT token, count(*) AS n FROM token_balances WHERE chain_id = $1 AND value > 0 AND holder <> ${ZERO_ADDRESS_BYTEA} GROUP BY token) c ON c.token = t2.address
  WHERE t.chain_id = $1 AND t2.chain_id = t.chain_id AND t2.address = t.address`;

type Phases = Record<string, number>;

async function timed<T>(phases: Phases, name: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  phases[name] = (phases[name] ?? 0) + performance.now() - started;
  return result;
}

async function runToday(db: Database, batches: BlockDelta[][], phases: Phases) {
  for (const batch of batches) {
    await timed(phases, 'upsert_batches', () => db.transaction((tx) => applyBlockChanges(tx, CHAIN, BalanceSum.of(batch).changed()).then(() => undefined)));
  }
}

/** The indexes no write reads: what a backfill could leave for the hand-over. */
const PAGE_INDEXES = ['token_balances_page', 'token_balances_by_holder', 'balance_intervals_key', 'balance_intervals_page'];

async function runDeferred(db: Database, batches: BlockDelta[][], phases: Phases) {
  const definitions = new Map([...(await indexDefinitions(db, 'token_balances_default')), ...(await indexDefinitions(db, 'balance_intervals_default'))]);
  for (const name of PAGE_INDEXES) await db.exec(`DROP INDEX ${name}`);
  await runToday(db, batches, phases);
  await timed(phases, 'index_builds', async () => {
    for (const name of PAGE_INDEXES) await db.exec(definitions.get(name)!);
  });
}

async function runFold(db: Database, batches: BlockDelta[][], phases: Phases) {
  await db.exec(LOG_TABLE);
  const every = Math.ceil(batches.length / FOLDS);
  for (let k = 0; k < batches.length; k++) {
    await timed(phases, 'log_append', () => db.transaction((tx) => appendToLog(tx, batches[k]!)));
    if ((k + 1) % every !== 0 && k !== batches.length - 1) continue;
    await db.transaction(async (tx) => {
      await timed(phases, 'fold_intervals', () => tx.query(FOLD_INTERVALS, [CHAIN]));
      await tx.query('CREATE TABLE token_balances_next (LIKE token_balances INCLUDING DEFAULTS)');
      await timed(phases, 'fold_balances_unindexed', () => tx.query(FOLD_BALANCES, [CHAIN]));
      await buildIndexesAndSwap(tx, phases);
      await timed(phases, 'fold_recount', () => tx.query(RECOUNT, [CHAIN]));
      await timed(phases, 'fold_log_clear', () => tx.query('DELETE FROM backfill_log WHERE chain_id = $1', [CHAIN]));
    });
  }
}

/**
 * `merged`: each batch appended to the log as in `fold`, then every `batches / folds` batches
 * today's write over all of them at once, so a key changed in several batches is upserted once.
 * No rebuild, no DDL: what a backfill without partitions could do.
 */
async function runMerged(db: Database, batches: BlockDelta[][], phases: Phases) {
  await db.exec(LOG_TABLE);
  const every = Math.ceil(batches.length / FOLDS);
  let pending: BlockDelta[] = [];
  for (let k = 0; k < batches.length; k++) {
    await timed(phases, 'log_append', () => db.transaction((tx) => appendToLog(tx, batches[k]!)));
    pending = pending.concat(batches[k]!);
    if ((k + 1) % every !== 0 && k !== batches.length - 1) continue;
    const group = pending;
    pending = [];
    await db.transaction(async (tx) => {
      await timed(phases, 'merge_upsert', () => applyBlockChanges(tx, CHAIN, BalanceSum.of(group).changed()));
      await timed(phases, 'fold_log_clear', () => tx.query('DELETE FROM backfill_log WHERE chain_id = $1', [CHAIN]));
    });
  }
}

/** What both variants must agree on. */
async function digest(db: Queryable) {
  const [row] = await db.query<Record<string, string>>(
    `SELECT (SELECT md5(string_agg(encode(token, 'hex') || encode(holder, 'hex') || value::text || ':' || block_number::text, ',' ORDER BY token, holder))
             FROM token_balances WHERE value <> 0) AS balances,
            (SELECT md5(string_agg(encode(token, 'hex') || encode(holder, 'hex') || value::text || ':' || from_block::text || '-' || to_block::text, ','
                        ORDER BY token, holder, to_block)) FROM balance_intervals) AS intervals,
            (SELECT string_agg(holder_count::text, ',' ORDER BY address) FROM tokens) AS counts,
            (SELECT count(*)::text FROM token_balances WHERE value > 0) AS holders,
            (SELECT count(*)::text FROM balance_intervals) AS interval_rows`,
  );
  return row!;
}

async function main() {
  const batches = syntheticBatches(SHAPE);
  const changes = batches.reduce((n, b) => n + b.length, 0);
  const result: Record<string, unknown> = { engine, rounds: ROUNDS, measured_at: new Date().toISOString(), load_average_at_start: loadavg().map((l) => Math.round(l * 100) / 100), shape: SHAPE, changes, folds: FOLDS };
  const digests: Record<string, Record<string, string>> = {};
  const variants = (args.variants?.split(',') ?? ['today', 'deferred', 'merged']) as Array<'today' | 'fold' | 'deferred' | 'merged'>;
  const runs: Record<string, Array<{ ms: number; phases: Phases }>> = { today: [], fold: [], deferred: [], merged: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[(k + round) % variants.length]!;
      const { db, close } = await openEngine();
      try {
        await seedTokens(db);
        const phases: Phases = {};
        const started = performance.now();
        await ({ today: runToday, fold: runFold, deferred: runDeferred, merged: runMerged}[variant](db, batches, phases));
        runs[variant]!.push({ ms: performance.now() - started, phases });
        digests[variant] = await digest(db);
        console.error(`${engine} round ${round + 1} ${variant}: ${Math.round(performance.now() - started)} ms`);
      } finally {
        await close();
      }
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const variant of variants) {
    const ms = median(runs[variant]!.map((r) => r.ms));
    const phaseNames = Object.keys(runs[variant]![0]!.phases);
    result[variant] = {
      ms: Math.round(ms),
      us_per_change: Math.round(((ms * 1000) / changes) * 10) / 10,
      runs_ms: runs[variant]!.map((r) => Math.round(r.ms)),
      // each round's time against today's in the same round: the drift cancels within a round
      ratio_to_today_per_round: runs[variant]!.map((r, i) => Math.round((r.ms / runs.today![i]!.ms) * 100) / 100),
      phases_ms: Object.fromEntries(phaseNames.map((name) => [name, Math.round(median(runs[variant]!.map((r) => r.phases[name] ?? 0)))])),
    };
  }
  const same = variants.every((variant) => JSON.stringify(digests[variant]) === JSON.stringify(digests.today));
  result.same_state = same;
  result.state = digests.today;
  if (!same) {
    console.error('the variants disagree', digests);
    process.exitCode = 1;
  }
  console.log(JSON.stringify(result, null, 2));
  if (args.out && same) writeFileSync(args.out, `${JSON.stringify(result, null, 2)}\n`);
}

await main();
