/**
 * What the backfill path's two catalog steps cost a running service (db/chain-partitions.ts):
 *
 * - a new chain's partitions on a database upgraded with another chain's balances in the
 *   DEFAULT partition: PostgreSQL scans that partition, under a lock that holds its reads, to
 *   prove none of its rows belong to the new one (`startBackfill`);
 * - the hand-over (`finishBackfill`): each page index built in bulk and committed on its own. On
 *   PGlite the API shares the one connection, so the longest single statement is how long a page
 *   can wait; PostgreSQL serves pages throughout (CREATE INDEX takes a lock that lets reads by).
 *
 * Rows are made by generate_series in the database (no indexer): `--balances` in the default
 * partition for chain 1, half as many balances and as many history intervals for the new chain 2.
 *
 *   npx tsx bench/hand-over.ts [--engine postgres|pglite] [--balances 1000000] [--out file]
 */
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { Queryable } from '../src/db/client.js';
import { finishBackfill, startBackfill } from '../src/db/chain-partitions.js';
import { freshDatabase, type Engine } from '../test/support/databases.js';
import { round } from './lib/stats.js';

const { values } = parseArgs({
  options: { engine: { type: 'string', default: 'postgres' }, balances: { type: 'string', default: '1000000' }, out: { type: 'string' } },
});
const engine = values.engine as Engine;
const BALANCES = Number(values.balances);
const NEW_CHAIN = 2;

/** `count` rows for `chainId`, spread over 1,000 tokens, made by the database itself. */
const fill = (table: 'token_balances' | 'balance_intervals', chainId: number, count: number) =>
  table === 'token_balances'
    ? `INSERT INTO token_balances (chain_id, token, holder, token_id, value, block_number)
       SELECT ${chainId}, decode(lpad(to_hex(g % 1000), 40, '0'), 'hex'), decode(lpad(to_hex(g), 40, '0'), 'hex'), NULL, g, g
       FROM generate_series(1, ${count}) g`
    : `INSERT INTO balance_intervals (chain_id, token, holder, token_id, value, from_block, to_block)
       SELECT ${chainId}, decode(lpad(to_hex(g % 1000), 40, '0'), 'hex'), decode(lpad(to_hex(g), 40, '0'), 'hex'), NULL, g, g, g + 5
       FROM generate_series(1, ${count}) g`;

const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const result = await work();
  return [result, round(performance.now() - started)];
};

const fresh = await freshDatabase(engine);
try {
  const { db } = fresh;
  await db.query(fill('token_balances', 1, BALANCES));
  await db.exec('VACUUM ANALYZE token_balances_default');
  const [state, startMs] = await timed(() => db.transaction((tx) => startBackfill(tx, NEW_CHAIN)));
  if (state !== 'backfilling') throw new Error(`chain ${NEW_CHAIN} did not start a backfill: ${state}`);
  await db.query(fill('token_balances', NEW_CHAIN, BALANCES / 2));
  await db.query(fill('balance_intervals', NEW_CHAIN, BALANCES / 2));

  const statements: Array<{ sql: string; ms: number }> = [];
  const each: Queryable = {
    query: async (text, params) => {
      const [rows, ms] = await timed(() => db.query(text, params));
      if (/^(CREATE|ANALYZE)/.test(text)) statements.push({ sql: text.slice(0, 70), ms });
      return rows as never;
    },
  };
  const [, handOverMs] = await timed(() => finishBackfill(each, NEW_CHAIN));
  const result = {
    engine,
    measured_at: new Date().toISOString(),
    load_average: loadavg().map((l) => round(l, 2)),
    default_partition_balances: BALANCES,
    new_chain: { balances: BALANCES / 2, intervals: BALANCES / 2 },
    start_backfill_ms: startMs,
    hand_over_ms: handOverMs,
    longest_statement_ms: Math.max(...statements.map((s) => s.ms)),
    statements,
  };
  console.log(JSON.stringify(result, null, 1));
  if (values.out) await writeFile(values.out, `${JSON.stringify(result, null, 1)}\n`);
} finally {
  await fresh.drop();
}
