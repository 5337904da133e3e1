/**
 * Holders at a past block (issue 13, part 3): the bench:api data set (one big token, small
 * tokens, blocks; bench/lib/api-data.ts) in a throwaway PostgreSQL database, plus a synthetic
 * balance history — each balance's current value at the block it last changed, and for half of
 * the holders an earlier value at an earlier block — then, through the real server (inject:
 * routing, auth, validation, query, view, serialization):
 *   - the big token's first page at blocks 10 %, 50 % and 90 % of the way back: cold (the
 *     snapshot is built by that request) and warm (p50 of repeats);
 *   - later pages of the same snapshot (p50, following next_page_params);
 *   - a small token's first page at a past block, cold;
 *   - storage per kept balance change (table + indexes) and per snapshot row.
 *
 *   npx tsx bench/history.ts -- --holders 200000     (the figure is for 10,000,000)
 */
import { buildServer } from '../src/api/server.js';
import { openDatabase } from '../src/db/client.js';
import { apiConfig } from '../test/support/api.js';
import { freshDatabase } from '../test/support/databases.js';
import { CHAIN_ID, loadApiData, type DataSize } from './lib/api-data.js';
import { withClient } from './lib/pg-client.js';
import { readFlags } from './lib/args.js';
import { logger, machineInfo } from './lib/results.js';
import { median, round } from './lib/stats.js';
import { writeFileSync } from 'node:fs';

const { sizes, options } = readFlags(
  { holders: 10_000_000, tokens: 1_000, blocks: 1_000_000, miners: 100, repeats: 30, pages: 30 },
  { holders: 20_011, tokens: 50, blocks: 20_000, miners: 10, repeats: 10, pages: 10 },
  { out: { type: 'string' } },
);
const log = logger('bench:history');

async function loadHistory(url: string, blocks: number): Promise<void> {
  await withClient(url, async (c) => {
    await c.query(`SET maintenance_work_mem = '1GB'; SET synchronous_commit = off; SET work_mem = '256MB'`);
    await c.query('SELECT setseed(0.1313)');
    await c.query('ALTER TABLE balance_history DROP CONSTRAINT balance_history_key');
    // the value now, at the block it last changed; half the holders held half as much before
    await c.query(`INSERT INTO balance_history (chain_id, token, holder, token_id, block_number, value)
                   SELECT chain_id, token, holder, token_id, block_number, value FROM token_balances`);
    await c.query(`INSERT INTO balance_history (chain_id, token, holder, token_id, block_number, value)
                   SELECT chain_id, token, holder, token_id, floor(block_number * random())::bigint, floor(value / 2)
                   FROM token_balances WHERE random() < 0.5 AND block_number > 0`);
    await c.query('DELETE FROM balance_history a USING balance_history b WHERE a.ctid < b.ctid AND a.chain_id = b.chain_id AND a.token = b.token AND a.holder = b.holder AND a.block_number = b.block_number');
    await c.query('ALTER TABLE balance_history ADD CONSTRAINT balance_history_key UNIQUE NULLS NOT DISTINCT (chain_id, token, holder, token_id, block_number)');
    await c.query('UPDATE chains SET history_from = 0, indexed_block = $1', [blocks]);
    await c.query('UPDATE tokens SET first_block = 0');
    await c.query('VACUUM ANALYZE balance_history');
  });
}

async function main() {
  const machine = await machineInfo({ postgresUrl: 'postgres://postgres@127.0.0.1:5432/postgres' });
  const size: DataSize = { holders: sizes.holders, tokens: sizes.tokens, blocks: sizes.blocks, miners: sizes.miners };
  const fresh = await freshDatabase('postgres');
  await fresh.db.close();
  const url = fresh.url!;
  const started = Date.now();
  await loadApiData(url, size, log);
  await loadHistory(url, size.blocks);
  log(`loaded in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const db = await openDatabase({ databaseUrl: url });
  const app = await buildServer({ db, api: apiConfig() });
  const get = async (path: string) => {
    const t0 = performance.now();
    const res = await app.inject({ method: 'GET', url: path, headers: { 'x-api-key': 'test-key-0123456789' } });
    const ms = performance.now() - t0;
    if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    return { ms, body: JSON.parse(res.body) as { items: unknown[]; next_page_params: Record<string, string | number> | null } };
  };
  const [big, small] = await withClient(url, async (c) => {
    const b = await c.query<{ a: string }>(`SELECT '0x' || encode(address, 'hex') AS a FROM tokens WHERE name = 'Big Token'`);
    const s = await c.query<{ a: string }>(`SELECT '0x' || encode(address, 'hex') AS a FROM tokens WHERE type = 'ERC-20' AND name <> 'Big Token' ORDER BY holder_count DESC LIMIT 1`);
    return [b.rows[0]!.a, s.rows[0]!.a];
  });
  const holders = (token: string, query: string) => `/${CHAIN_ID}/api/v2/tokens/${token}/holders?${query}`;

  const results: Record<string, unknown> = {};
  for (const back of [10, 50, 90]) {
    const block = Math.round(size.blocks * (1 - back / 100));
    const cold = await get(holders(big, `block_number=${block}`));
    const warm: number[] = [];
    for (let i = 0; i < sizes.repeats; i++) warm.push((await get(holders(big, `block_number=${block}`))).ms);
    const later: number[] = [];
    let next = cold.body.next_page_params;
    for (let i = 0; i < sizes.pages && next; i++) {
      const page = await get(holders(big, new URLSearchParams(Object.fromEntries(Object.entries(next).map(([k, v]) => [k, String(v)]))).toString()));
      later.push(page.ms);
      next = page.body.next_page_params;
    }
    const rows = await withClient(url, async (c) => (await c.query<{ n: string }>('SELECT row_count::text AS n FROM holder_snapshots WHERE block_number = $1 AND token = decode($2, \'hex\')', [block, big.slice(2)])).rows[0]!.n);
    results[`big_${back}pct_back`] = { block, snapshot_rows: Number(rows), first_page_cold_ms: round(cold.ms, 1), first_page_warm_p50_ms: round(median(warm), 2), later_pages_p50_ms: round(median(later), 2) };
    log(`big token, ${back} % back (block ${block}, ${rows} holders): cold ${cold.ms.toFixed(0)} ms, warm p50 ${median(warm).toFixed(2)} ms, later pages p50 ${median(later).toFixed(2)} ms`);
  }
  const smallCold: number[] = [];
  for (const back of [10, 50, 90]) smallCold.push((await get(holders(small, `block_number=${Math.round(size.blocks * (1 - back / 100))}`))).ms);
  results.small_first_page_cold_ms = smallCold.map((m) => round(m, 1));
  log(`small token first page cold at 10/50/90 % back: ${smallCold.map((m) => m.toFixed(1)).join(', ')} ms`);

  results.storage = await withClient(url, async (c) => {
    const q = await c.query<{ rows: string; heap: string; key: string; brin: string; snap_rows: string; snap_bytes: string }>(
      `SELECT (SELECT count(*) FROM balance_history)::text AS rows, pg_table_size('balance_history')::text AS heap,
              pg_relation_size('balance_history_key')::text AS key, pg_relation_size('balance_history_by_block')::text AS brin,
              (SELECT count(*) FROM holder_snapshot_rows)::text AS snap_rows, pg_total_relation_size('holder_snapshot_rows')::text AS snap_bytes`,
    );
    const r = q.rows[0]!;
    const n = Number(r.rows);
    return {
      history_rows: n,
      bytes_per_change_table: round(Number(r.heap) / n, 1),
      bytes_per_change_indexes: round((Number(r.key) + Number(r.brin)) / n, 1),
      bytes_per_change_total: round((Number(r.heap) + Number(r.key) + Number(r.brin)) / n, 1),
      snapshot_rows: Number(r.snap_rows),
      bytes_per_snapshot_row: round(Number(r.snap_bytes) / Math.max(1, Number(r.snap_rows)), 1),
    };
  });
  log(JSON.stringify(results.storage));
  const out = { command: `npx tsx bench/history.ts ${process.argv.slice(2).join(' ')}`, machine, size, results };
  writeFileSync((options.out as string | undefined) ?? 'bench/results/history.json', `${JSON.stringify(out, null, 2)}\n`);
  await app.close();
  await db.close();
  // (fresh.db was closed after the migration: drop only removes the database)
  await fresh.drop().catch(() => undefined);
}

await main();
