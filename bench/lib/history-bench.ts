/**
 * Holders at a past block (issue 13), measured inside bench:api on its data set: a synthetic
 * history is added in bulk, shaped as the indexer keeps it (migration 023): each live row was
 * set at its block (uniform over the chain, as api-data.ts loads it), and half of the balances
 * held half as much from an earlier block until then (an interval). Then, through the real
 * server, at blocks 10 %, 50 % and 90 % of the way back:
 *   - the big token's first page, the first time that block is asked ("cold": nothing was
 *     computed for it; the database's caches are whatever the run left), then repeated (warm);
 *   - the pages after it, following next_page_params; and pages at 10 % depth of the list at N;
 *   - a small token's first page, the first time asked;
 *   - the counters at N (a count over the token's holders at N, kept once made: no target);
 * and the storage per kept balance change (an interval: heap, key, page and BRIN indexes).
 */
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/client.js';
import { holdersWindow } from '../../src/db/queries/holders-window.js';
import type { Hex } from '../../src/db/rows.js';
import { TEST_KEY } from '../../test/support/api.js';
import { addressOf, CHAIN_ID, type DataSize } from './api-data.js';
import { PAGE } from './api-targets.js';
import { withClient } from './pg-client.js';
import { median, round } from './stats.js';

const BACK = [10, 50, 90] as const;

/** The synthetic history, in bulk, then statistics and the visibility map as autovacuum leaves them. */
export async function loadHistory(url: string, size: DataSize, log: (m: string) => void): Promise<void> {
  const started = Date.now();
  await withClient(url, async (c) => {
    await c.query(`SET maintenance_work_mem = '1GB'; SET synchronous_commit = off; SET work_mem = '256MB'`);
    await c.query('SELECT setseed(0.1313)');
    await c.query('DROP INDEX balance_intervals_key, balance_intervals_page, balance_intervals_by_end');
    await c.query(`INSERT INTO balance_intervals (chain_id, token, holder, token_id, value, from_block, to_block)
                   SELECT chain_id, token, holder, token_id, v, floor(block_number * random())::bigint, block_number
                   FROM (SELECT *, floor(value / 2) AS v FROM token_balances WHERE random() < 0.5 AND block_number > 0) b
                   WHERE v > 0`);
    // on the default partition, where the bench's rows are and the migrations put these indexes
    await c.query('CREATE INDEX balance_intervals_key ON balance_intervals_default (chain_id, token, holder, token_id, to_block)');
    await c.query(`CREATE INDEX balance_intervals_page ON balance_intervals_default (chain_id, token, value DESC, holder DESC, token_id DESC)
                   INCLUDE (from_block, to_block)`);
    await c.query('CREATE INDEX balance_intervals_by_end ON balance_intervals_default USING brin (chain_id, to_block)');
    await c.query('UPDATE chains SET history_from = 0 WHERE chain_id = $1', [CHAIN_ID]);
    await c.query('UPDATE tokens SET first_block = 0 WHERE chain_id = $1', [CHAIN_ID]);
    await c.query('VACUUM ANALYZE balance_intervals');
    await c.query('VACUUM ANALYZE token_balances');
  });
  log(`history loaded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

type Get = (path: string) => Promise<{ ms: number; body: { items: unknown[]; next_page_params: Record<string, string | number> | null } }>;

function getter(app: FastifyInstance): Get {
  return async (path) => {
    const t0 = performance.now();
    const res = await app.inject({ method: 'GET', url: path });
    const ms = performance.now() - t0;
    if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    return { ms, body: JSON.parse(res.body) };
  };
}

const path = (token: string, route: 'holders' | 'counters', params: Record<string, string | number>) =>
  `/${CHAIN_ID}/api/v2/tokens/${token}/${route}?${new URLSearchParams({ apikey: TEST_KEY, ...Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])) })}`;

export interface HistoryOptions {
  repeats: number;
  pages: number;
}

/** Every figure at 10 / 50 / 90 % back; the server should run with the page cache off. */
export async function measureHistory(app: FastifyInstance, db: Database, url: string, size: DataSize, opts: HistoryOptions, log: (m: string) => void) {
  const get = getter(app);
  const { big, small } = await withClient(url, async (c) => {
    const s = await c.query<{ a: string }>(
      `SELECT '0x' || encode(address, 'hex') AS a FROM tokens WHERE chain_id = $1 AND type = 'ERC-20' AND holder_count <= 10000
       ORDER BY holder_count DESC LIMIT 1`,
      [CHAIN_ID],
    );
    return { big: await addressOf(c, 'token', 0), small: s.rows[0]!.a };
  });
  const perBlock: Record<string, unknown> = {};
  for (const back of BACK) {
    const block = Math.round(size.blocks * (1 - back / 100));
    const first = { block_number: block, items_count: PAGE };
    const cold = await get(path(big, 'holders', first));
    const warm: number[] = [];
    for (let i = 0; i < opts.repeats; i++) warm.push((await get(path(big, 'holders', first))).ms);
    const later: number[] = [];
    let next = cold.body.next_page_params;
    for (let i = 0; i < opts.pages && next; i++) {
      const page = await get(path(big, 'holders', { ...next, items_count: PAGE }));
      later.push(page.ms);
      next = page.body.next_page_params;
    }
    const deep = await deepPagesAt(db, big, block, Math.round(size.holders * 0.1), opts.pages);
    const deepMs: number[] = [];
    for (const cursor of deep) deepMs.push((await get(path(big, 'holders', { ...cursor, block_number: block, items_count: PAGE }))).ms);
    const countersCold = await get(path(big, 'counters', { block_number: block }));
    perBlock[`${back}pct_back`] = {
      block,
      first_page_cold_ms: round(cold.ms, 2),
      first_page_warm_p50_ms: round(median(warm), 3),
      later_pages_p50_ms: round(median(later), 3),
      pages_at_10pct_depth_p50_ms: deepMs.length ? round(median(deepMs), 3) : null,
      counters_cold_ms: round(countersCold.ms, 1),
      holders_at_block: Number((countersCold.body as unknown as { token_holders_count: string }).token_holders_count),
    };
    log(`history, ${back} % back (block ${block}): ${JSON.stringify(perBlock[`${back}pct_back`])}`);
  }
  const smallCold: number[] = [];
  for (const back of BACK) smallCold.push((await get(path(small, 'holders', { block_number: Math.round(size.blocks * (1 - back / 100)) + 1 }))).ms);
  const worst = (k: string) => Math.max(...Object.values(perBlock).map((v) => (v as Record<string, number>)[k]!));
  const storage = await intervalStorage(url);
  log(`history: small token first page cold ${smallCold.map((m) => m.toFixed(2)).join(' / ')} ms; storage ${JSON.stringify(storage)}`);
  return {
    first_page_cold_ms: round(worst('first_page_cold_ms'), 2),
    first_page_warm_p50_ms: round(worst('first_page_warm_p50_ms'), 3),
    later_pages_p50_ms: round(worst('later_pages_p50_ms'), 3),
    small_first_page_cold_ms: round(Math.max(...smallCold), 2),
    note: 'worst of 10/50/90 % back; cold = the first request at that block (nothing computed for it before; database caches as the run left them)',
    per_block: perBlock,
    small_first_page_cold_each_ms: smallCold.map((m) => round(m, 2)),
    storage,
  };
}

/** Cursors `pages` pages apart from `depth` rows down the list at `block`, read once with OFFSET as the Etherscan-style list reads it. */
async function deepPagesAt(db: Database, token: Hex, block: number, depth: number, pages: number) {
  const rows = await holdersWindow(db, { chainId: CHAIN_ID, token, offset: depth, limit: pages * PAGE, sort: 'desc', source: { kind: 'past', block: BigInt(block) } });
  return rows.filter((_, i) => i % PAGE === 0).map((r) => ({ value: r.value.toString(), address_hash: r.holder }));
}

async function intervalStorage(url: string) {
  return withClient(url, async (c) => {
    const q = await c.query<{ rows: string; heap: string; key: string; page: string; brin: string }>(
      `SELECT (SELECT count(*) FROM balance_intervals)::text AS rows, pg_table_size('balance_intervals_default')::text AS heap,
              pg_relation_size('balance_intervals_key')::text AS key, pg_relation_size('balance_intervals_page')::text AS page,
              pg_relation_size('balance_intervals_by_end')::text AS brin`,
    );
    const r = q.rows[0]!;
    const n = Math.max(1, Number(r.rows));
    const per = (bytes: number) => round(bytes / n, 1);
    return {
      intervals: Number(r.rows),
      bytes_per_change_table: per(Number(r.heap)),
      bytes_per_change_indexes: per(Number(r.key) + Number(r.page) + Number(r.brin)),
      bytes_per_change_key_index: per(Number(r.key)),
      bytes_per_change_page_index: per(Number(r.page)),
      bytes_per_change_total: per(Number(r.heap) + Number(r.key) + Number(r.page) + Number(r.brin)),
      note: 'bulk-built indexes; grown row by row they are larger (bench:index --history-cost measures that)',
    };
  });
}
