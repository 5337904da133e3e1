/**
 * The two v2 page operations' statements (holders, blocks-validated), as the API prepares them,
 * are one range scan of their index with no Sort (index-only for blocks-validated), at the top page and at depth 100,000 (where the
 * cursor bounds the range: an Index Cond on the keyset column), on both
 * engines (PGlite is the default) and for both plans a prepared statement can run with
 * (test/support/query-plans.ts): the custom plan, planned with the page's own values, and the
 * generic plan (`plan_cache_mode = force_generic_plan`), the one the API runs them with
 * (`QueryOptions.genericPlan`: PostgreSQL's own choice kept re-planning the holders statement).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { holdersPageQuery } from '../../src/db/queries/holders.js';
import { blocksValidatedPageQuery } from '../../src/db/queries/blocks.js';
import { blocksListPageQuery } from '../../src/db/queries/blocks-list.js';
import type { Hex } from '../../src/db/rows.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { addressOf } from '../support/seed.js';
import { expectOneIndexScan, planOf, type PlanNode, type Planner } from '../support/query-plans.js';

const CHAIN = 1;
const TOKEN = addressOf(1, 'token');
/** an ERC-1155 token: IDS ids, ID_HOLDERS holders of each */
const MULTI = addressOf(2, 'token');
const IDS = 10;
const ID_HOLDERS = 6_000;
const ID_DEPTH = 5_000;
const MINER = addressOf(1, 'miner');
const HOLDERS = 120_000;
const BLOCKS = 220_000; // MINER mines every second block: 110,000 of them
const DEPTH = 100_000;
const PLANNERS: Planner[] = ['custom', 'generic'];

// Bulk-loaded server-side: values and addresses derived from the row number, so the keyset
// position of a deep page is known without reading the table.
describe.each(await availableEngines())('each v2 page is one index range scan on %s', (engine) => {
  let db: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await freshDatabase(engine));
    await db.query(
      `INSERT INTO token_balances (chain_id, token, holder, token_id, value, block_number)
       SELECT $1, $2, decode(lpad(to_hex(i), 40, '0'), 'hex'), NULL, (i * 1000)::numeric, 1
       FROM generate_series(1, ${HOLDERS}) i`,
      [CHAIN, Buffer.from(TOKEN.slice(2), 'hex')],
    );
    await db.query(
      `INSERT INTO blocks (chain_id, hash, number, parent_hash, nonce, timestamp, miner, size, difficulty,
         gas_limit, gas_used, burnt_fees, priority_fee, transaction_fees, transactions_count)
       SELECT $1, decode(lpad(to_hex(i), 64, '0'), 'hex'), i, decode(lpad(to_hex(i - 1), 64, '0'), 'hex'),
         '\\x0000000000000000'::bytea, 1700000000 + i * 12,
         CASE WHEN i % 2 = 0 THEN $2::bytea ELSE decode(lpad(to_hex(i % 97), 40, '0'), 'hex') END,
         1000, 0, 30000000, 15000000, 0, 0, 0, 0
       FROM generate_series(1, ${BLOCKS}) i`,
      [CHAIN, Buffer.from(MINER.slice(2), 'hex')],
    );
    await db.query(
      `INSERT INTO token_balances (chain_id, token, holder, token_id, value, block_number)
       SELECT $1, $2, decode(lpad(to_hex(h), 40, '0'), 'hex'), id, (h * 10 + id)::numeric, 1
       FROM generate_series(1, ${IDS}) id, generate_series(1, ${ID_HOLDERS}) h`,
      [CHAIN, Buffer.from(MULTI.slice(2), 'hex')],
    );
    // and every fourth of them held another amount from block 1 to 10
    await db.query(
      `INSERT INTO balance_intervals (chain_id, token, holder, token_id, value, from_block, to_block)
       SELECT $1, $2, decode(lpad(to_hex(h), 40, '0'), 'hex'), id, (h * 10 + id + 1)::numeric, 1, 10
       FROM generate_series(1, ${IDS}) id, generate_series(1, ${ID_HOLDERS}, 4) h`,
      [CHAIN, Buffer.from(MULTI.slice(2), 'hex')],
    );
    // every holder and miner has its addresses row, as the indexer writes them: the page's
    // per-row probe is planned against a table of the real size (an empty, never analysed one
    // lets the generic plan read the chain's whole addresses table once instead)
    await db.query(
      `INSERT INTO addresses (chain_id, hash)
       SELECT $1::bigint, decode(lpad(to_hex(i), 40, '0'), 'hex') FROM generate_series(1, ${HOLDERS}) i
       UNION SELECT $1::bigint, $2::bytea`,
      [CHAIN, Buffer.from(MINER.slice(2), 'hex')],
    );
    // history: every third holder held a value before its current one, from block 1 to 10,
    // as the balance write leaves it: the live row set at block 10, the old value an interval
    await db.query(
      `UPDATE token_balances SET block_number = 10 WHERE chain_id = $1 AND token = $2 AND (get_byte(holder, 19) + 256 * get_byte(holder, 18) + 65536 * get_byte(holder, 17)) % 3 = 1`,
      [CHAIN, Buffer.from(TOKEN.slice(2), 'hex')],
    );
    await db.query(
      `INSERT INTO balance_intervals (chain_id, token, holder, token_id, value, from_block, to_block)
       SELECT $1, $2, decode(lpad(to_hex(i), 40, '0'), 'hex'), NULL, (i * 1000 + 1)::numeric, 1, 10
       FROM generate_series(1, ${HOLDERS}, 3) i`,
      [CHAIN, Buffer.from(TOKEN.slice(2), 'hex')],
    );
    // as autovacuum leaves a table: statistics, and the visibility map index-only scans rely on
    for (const table of ['token_balances', 'balance_intervals', 'blocks', 'addresses']) await db.query(`VACUUM ANALYZE ${table}`);
  }, 300_000);
  afterAll(() => drop?.());

  /** a deep page's scan starts at its cursor: the keyset column bounds the index range (not a filter on every row before it) */
  const expectRangeFromCursor = (nodes: PlanNode[], index: string, column: string) => {
    const scan = nodes.find((n) => n['Index Name'] === index)!;
    expect(scan['Index Cond'], JSON.stringify(scan)).toContain(column);
  };

  const holdersAtDepth = () => {
    const i = HOLDERS - DEPTH; // the row at that depth, counting from the largest value
    return { i, after: { value: BigInt(i) * 1000n, holder: `0x${i.toString(16).padStart(40, '0')}` as Hex } };
  };
  const blocksBeforeDepth = BLOCKS - 2 * DEPTH;

  it.each(PLANNERS)('holders, %s plan: top page and a page at depth 100,000', async (planner) => {
    const top = holdersPageQuery({ chainId: CHAIN, token: TOKEN, after: null, limit: 51 });
    expectOneIndexScan(await planOf(db, top, planner), 'token_balances_page');
    const deep = holdersPageQuery({ chainId: CHAIN, token: TOKEN, after: holdersAtDepth().after, limit: 51 });
    const deepPlan = await planOf(db, deep, planner);
    expectOneIndexScan(deepPlan, 'token_balances_page');
    expectRangeFromCursor(deepPlan, 'token_balances_page', 'value');
  });

  it.each(PLANNERS)("one ERC-1155 id's holders, %s plan: its own index's range, top page and at depth 5,000 within the id", async (planner) => {
    const instance = 4n;
    const top = holdersPageQuery({ chainId: CHAIN, token: MULTI, instance, after: null, limit: 51 });
    const topPlan = await planOf(db, top, planner);
    expectOneIndexScan(topPlan, 'token_balances_by_id');
    expectRangeFromCursor(topPlan, 'token_balances_by_id', 'token_id');
    const h = ID_HOLDERS - ID_DEPTH;
    const after = { value: BigInt(h * 10) + instance, holder: `0x${h.toString(16).padStart(40, '0')}` as Hex };
    const deepPlan = await planOf(db, holdersPageQuery({ chainId: CHAIN, token: MULTI, instance, after, limit: 51 }), planner);
    expectOneIndexScan(deepPlan, 'token_balances_by_id');
    expectRangeFromCursor(deepPlan, 'token_balances_by_id', 'value');
    // at a past block: one index-only range scan of each by-id index, cut at the page
    for (const from of [null, after]) {
      const plan = await planOf(db, holdersPageQuery({ chainId: CHAIN, token: MULTI, instance, after: from, limit: 51, source: { kind: 'past', block: 5n } }), planner);
      const types = plan.map((n) => n['Node Type']);
      expect(types.filter((t) => /Seq Scan|Bitmap/.test(t)), JSON.stringify(types)).toEqual([]);
      for (const index of ['token_balances_by_id', 'balance_intervals_by_id']) {
        expect(plan.filter((n) => n['Index Name'] === index).map((n) => n['Node Type']), index).toEqual(['Index Only Scan']);
        if (from) expectRangeFromCursor(plan, index, 'value');
      }
    }
  });

  it.each(PLANNERS)('holders at a past block, %s plan: one index-only range scan of each page index, cut at the page, at the top and at depth 100,000', async (planner) => {
    const past = { kind: 'past' as const, block: 5n };
    for (const after of [null, holdersAtDepth().after]) {
      const plan = await planOf(db, holdersPageQuery({ chainId: CHAIN, token: TOKEN, after, limit: 51, source: past }), planner);
      const types = plan.map((n) => n['Node Type']);
      // the only Sort is the merge of the two cut lists (at most two pages of rows)
      expect(types.filter((t) => t === 'Limit').length, JSON.stringify(types)).toBe(3);
      expect(types.filter((t) => /Seq Scan|Bitmap/.test(t)), JSON.stringify(types)).toEqual([]);
      for (const index of ['token_balances_page', 'balance_intervals_page']) {
        const scans = plan.filter((n) => n['Index Name'] === index);
        expect(scans.map((n) => n['Node Type']), index).toEqual(['Index Only Scan']);
        if (after) expectRangeFromCursor(plan, index, 'value');
      }
    }
  });

  it("the pages at a past block are that block's: each holder once, the interval's value where one spans it", async () => {
    const past = { kind: 'past' as const, block: 5n };
    const { i, after } = holdersAtDepth();
    const q = holdersPageQuery({ chainId: CHAIN, token: TOKEN, after, limit: 6, source: past });
    const rows = await db.query<{ holder: string; value: string }>(q.text, q.args, { prepare: true, genericPlan: true });
    // below row i in (value, holder) order: every holder j < i once, valued j*1000+1 where its
    // interval (j ≡ 1 mod 3) spans block 5, j*1000 otherwise; the interval of row i itself is above the cursor
    const expected = [];
    for (let j = i - 1; expected.length < 6; j--) expected.push([j.toString(16).padStart(40, '0'), String(j * 1000 + (j % 3 === 1 ? 1 : 0))]);
    expect(rows.map((r) => [r.holder, r.value])).toEqual(expected);
  });

  it.each(PLANNERS)("blocks-validated, %s plan: top page and a page at depth 100,000 of the miner's blocks", async (planner) => {
    // index-only: the page reads what blocks_validated_page holds (migration 021), no block row
    const indexOnly = (nodes: PlanNode[]) =>
      expect(nodes.find((n) => n['Index Name'] === 'blocks_validated_page')!['Node Type']).toBe('Index Only Scan');
    const top = blocksValidatedPageQuery({ chainId: CHAIN, miner: MINER, beforeNumber: null, limit: 51 });
    const topPlan = await planOf(db, top, planner);
    expectOneIndexScan(topPlan, 'blocks_validated_page');
    indexOnly(topPlan);
    const deep = blocksValidatedPageQuery({ chainId: CHAIN, miner: MINER, beforeNumber: BigInt(blocksBeforeDepth), limit: 51 });
    const deepPlan = await planOf(db, deep, planner);
    expectOneIndexScan(deepPlan, 'blocks_validated_page');
    indexOnly(deepPlan);
    expectRangeFromCursor(deepPlan, 'blocks_validated_page', 'number');
  });

  it.each(PLANNERS)("the chain's blocks list, %s plan: its top page and a page 100,000 blocks deep, one range of the consensus index", async (planner) => {
    const top = await planOf(db, blocksListPageQuery({ chainId: CHAIN, type: 'block', beforeNumber: null, limit: 51 }), planner);
    expectOneIndexScan(top, 'blocks_consensus_number');
    const deep = await planOf(db, blocksListPageQuery({ chainId: CHAIN, type: 'block', beforeNumber: BigInt(blocksBeforeDepth), limit: 51 }), planner);
    expectOneIndexScan(deep, 'blocks_consensus_number');
    expectRangeFromCursor(deep, 'blocks_consensus_number', 'number');
  });

  it('the deep pages really are that deep: each starts right after its cursor, run as the API runs them', async () => {
    const { i, after } = holdersAtDepth();
    const holders = holdersPageQuery({ chainId: CHAIN, token: TOKEN, after, limit: 51 });
    const rows = await db.query<{ value: string }>(holders.text, holders.args, { prepare: true });
    expect(rows[0]!.value).toBe(String((i - 1) * 1000));
    const blocks = blocksValidatedPageQuery({ chainId: CHAIN, miner: MINER, beforeNumber: BigInt(blocksBeforeDepth), limit: 51 });
    const found = await db.query<{ number: string }>(blocks.text, blocks.args, { prepare: true });
    expect(Number(found[0]!.number)).toBe(blocksBeforeDepth - 2);
  });
});
