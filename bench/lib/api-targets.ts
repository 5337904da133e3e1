/**
 * What bench:api times: the top and deep pages of both operations as request paths, the page
 * queries alone, and their statements for EXPLAIN.
 */
import type { Database } from '../../src/db/client.js';
import { blocksValidatedPage, blocksValidatedPageQuery } from '../../src/db/queries/blocks.js';
import { holdersPage, holdersPageQuery, PAGE_FILTER } from '../../src/db/queries/holders.js';
import { toBytea } from '../../src/db/hex.js';
import type { Hex } from '../../src/db/rows.js';
import { TEST_KEY } from '../../test/support/api.js';
import { addressOf, CHAIN_ID, type DataSize } from './api-data.js';
import { withClient } from './pg-client.js';

export const PAGE = 50;
/** distinct cursors per deep target, so a run reads many index pages, not one cached page */
const CURSORS = 100;

export interface Target {
  name: string;
  /** request paths (with query), cycled through */
  paths: string[];
  /** the page query and row mapping alone, same parameters, cycled */
  queries: Array<() => Promise<unknown>>;
  /** the page statements, for EXPLAIN ANALYZE */
  statements: Array<{ text: string; args: unknown[] }>;
}

/**
 * Top page and pages at 10% and 90% depth (1M and 9M of 10M) of the big token; top page and
 * the page 90% down the busiest miner's blocks. Deep positions are read once with OFFSET, the
 * way no request ever reads them.
 */
export async function buildTargets(db: Database, url: string, size: DataSize, log: (m: string) => void): Promise<Target[]> {
  const { token, miner } = await withClient(url, async (c) => {
    const busiest = await c.query<{ m: string }>(
      `SELECT encode(miner, 'hex') AS m FROM blocks WHERE chain_id = $1 GROUP BY miner ORDER BY count(*) DESC LIMIT 1`,
      [CHAIN_ID],
    );
    return { token: await addressOf(c, 'token', 0), miner: `0x${busiest.rows[0]!.m}` as Hex };
  });
  const counted = await db.query<{ n: string }>('SELECT count(*)::text AS n FROM blocks WHERE chain_id = $1 AND miner = $2', [CHAIN_ID, toBytea(miner)]);
  const mined = Number(counted[0]!.n);
  const blocksTarget = async (depth: number): Promise<Target> => {
    const rows =
      depth === 0
        ? [null]
        : await db.query<{ number: string }>(
            `SELECT number::text AS number FROM blocks WHERE chain_id = $1 AND miner = $2 ORDER BY number DESC OFFSET $3 LIMIT $4`,
            [CHAIN_ID, toBytea(miner), depth - 1, span(mined)],
          );
    const befores = rows.filter((_, i) => i % PAGE === 0).map((r) => (r ? BigInt(r.number) : null));
    const params = befores.map((beforeNumber) => ({ chainId: CHAIN_ID, miner, beforeNumber, limit: PAGE + 1 }));
    return {
      name: `blocks_${label(depth)}`,
      paths: befores.map((b) => q(`addresses/${miner}/blocks-validated`, b === null ? {} : { block_number: b.toString(), items_count: PAGE })),
      queries: params.map((p) => () => blocksValidatedPage(db, p)),
      statements: params.map((p) => blocksValidatedPageQuery(p)),
    };
  };

  log(`reading deep cursors (busiest miner mined ${mined.toLocaleString('en-US')} blocks)`);
  return [
    ...(await holderTargets(db, token, size)),
    await blocksTarget(0),
    await blocksTarget(Math.round(mined * 0.9) - span(mined)),
  ];
}

const q = (path: string, params: Record<string, string | number>) =>
  `/${CHAIN_ID}/api/v2/${path}?${new URLSearchParams({ apikey: TEST_KEY, ...Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])) })}`;

/** A token's holders pages at the top, 10% and 90% down. */
export async function holderTargets(db: Database, token: Hex, size: DataSize): Promise<Target[]> {
  const holdersTarget = async (depth: number): Promise<Target> => {
    const rows =
      depth === 0
        ? [null]
        : await db.query<{ value: string; holder: string }>(
            `SELECT b.value::text AS value, encode(b.holder, 'hex') AS holder FROM token_balances b WHERE ${PAGE_FILTER}
             ORDER BY b.value DESC, b.holder DESC, b.token_id DESC OFFSET $3 LIMIT $4`,
            [CHAIN_ID, toBytea(token), depth - 1, span(size.holders)],
          );
    const cursors = rows.filter((_, i) => i % PAGE === 0).map((r) => (r ? { value: BigInt(r.value), holder: `0x${r.holder}` as Hex } : null));
    const params = cursors.map((after) => ({ chainId: CHAIN_ID, token, after, limit: PAGE + 1 }));
    return {
      name: `holders_${label(depth)}`,
      paths: cursors.map((c) => q(`tokens/${token}/holders`, c ? { value: c.value.toString(), address_hash: c.holder, items_count: PAGE } : {})),
      queries: params.map((p) => () => holdersPage(db, p)),
      statements: params.map((p) => holdersPageQuery(p)),
    };
  };
  return [await holdersTarget(0), await holdersTarget(Math.round(size.holders * 0.1)), await holdersTarget(Math.round(size.holders * 0.9) - span(size.holders))];
}

/** Rows the deep cursors of a list of `total` spread over: CURSORS pages, fewer on small lists. */
const span = (total: number) => Math.max(PAGE, Math.min(CURSORS * PAGE, Math.floor((total * 0.05) / PAGE) * PAGE));

const label = (depth: number) => (depth === 0 ? 'top' : depth >= 1_000_000 ? `depth_${Math.round(depth / 1e6)}M` : `depth_${Math.round(depth / 1e3)}k`);

