/**
 * The Etherscan-style actions' statements, as the API prepares them, are one range scan of
 * their index at the depths they are asked for, on both engines and for both the custom and
 * the generic plan (test/support/query-plans.ts): the holdings of an address holding 10,000
 * tokens (top page and the last one), a token's holders at depth 100,000, a miner's blocks,
 * the block closest to a time and a token's supply.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import type { Hex } from '../../src/db/rows.js';
import { holdingsQuery } from '../../src/db/queries/holdings.js';
import { holdersWindowQuery } from '../../src/db/queries/holders-window.js';
import { minedBlocksQuery } from '../../src/db/queries/mined-blocks.js';
import { blockByTimeQuery } from '../../src/db/queries/block-by-time.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { addressOf } from '../support/seed.js';
import { expectOneIndexScan, planOf, type Planner } from '../support/query-plans.js';

const CHAIN = 1;
const TOKEN = addressOf(1, 'x-token');
const OWNER = addressOf(1, 'x-owner');
const MINER = addressOf(1, 'x-miner');
const HOLDERS = 120_000;
/** OWNER holds 10,000 tokens (every tenth an ERC-721) among 30,000 tokens held by others too */
const OWNED = 10_000;
const TOKENS = 30_000;
const BLOCKS = 60_000;
const PLANNERS: Planner[] = ['custom', 'generic'];

/** SQL: the integer `expr` as `width` hex digits */
const hexOf = (expr: string, width: number) => `lpad(to_hex(${expr}), ${width}, '0')`;
const bytes = (hex: Hex) => Buffer.from(hex.slice(2), 'hex');

describe.each(await availableEngines())('Etherscan-style statements are one index range scan on %s', (engine) => {
  let db: Database;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await freshDatabase(engine));
    // TOKEN's holders, values derived from the row number so a depth's position is known
    await db.query(
      `INSERT INTO token_balances (chain_id, token, holder, token_id, value, block_number)
       SELECT $1, $2, decode(${hexOf('i', 40)}, 'hex'), NULL, (i * 1000)::numeric, 1 FROM generate_series(1, ${HOLDERS}) i`,
      [CHAIN, bytes(TOKEN)],
    );
    // 30,000 tokens with metadata; OWNER holds the first 10,000, three other holders each hold all of them
    await db.query(
      `INSERT INTO tokens (chain_id, address, type, name, symbol, decimals)
       SELECT $1, decode('ee' || ${hexOf('i', 38)}, 'hex'), CASE WHEN i % 10 = 0 THEN 'ERC-721' ELSE 'ERC-20' END, 'T' || i, 'S' || i, 18
       FROM generate_series(1, ${TOKENS}) i`,
      [CHAIN],
    );
    await db.query(
      `INSERT INTO token_balances (chain_id, token, holder, token_id, value, block_number)
       SELECT $1, decode('ee' || ${hexOf('i', 38)}, 'hex'), h.holder, NULL, i, 1
       FROM generate_series(1, ${TOKENS}) i
       CROSS JOIN LATERAL (SELECT $2::bytea AS holder WHERE i <= ${OWNED}
                           UNION ALL SELECT decode(${hexOf('i % 3 + 1', 40)}, 'hex')) h`,
      [CHAIN, bytes(OWNER)],
    );
    await db.query(
      `INSERT INTO blocks (chain_id, hash, number, parent_hash, nonce, timestamp, miner, size, difficulty,
         gas_limit, gas_used, burnt_fees, priority_fee, transaction_fees, transactions_count)
       SELECT $1, decode(${hexOf('i', 64)}, 'hex'), i, decode(lpad(to_hex(i - 1), 64, '0'), 'hex'),
         '\\x0000000000000000'::bytea, 1700000000 + (i / 2) * 12,
         CASE WHEN i % 2 = 0 THEN $2::bytea ELSE decode(lpad(to_hex(i % 97), 40, '0'), 'hex') END,
         1000, 0, 30000000, 15000000, 0, 0, 0, 0
       FROM generate_series(1, ${BLOCKS}) i`,
      [CHAIN, bytes(MINER)],
    );
    // as autovacuum leaves a table: statistics, and the visibility map index-only scans rely
    // on. (Right after a bulk write, before autovacuum has run, PostgreSQL may read a page deep
    // into one holder's range with a bitmap scan and a sort of that holder's rows instead.)
    for (const table of ['token_balances', 'tokens', 'blocks']) await db.query(`VACUUM ANALYZE ${table}`);
  }, 300_000);
  afterAll(() => drop?.());

  it.each(PLANNERS)('addresstokenbalance of an address holding 10,000 tokens, %s plan: first and last page', async (planner) => {
    for (const type of ['ERC-20', 'ERC-721'] as const) {
      for (const offset of [0, 8_900, 9_990]) {
        const q = holdingsQuery({ chainId: CHAIN, holder: OWNER, type, offset, limit: 100, sort: 'asc' });
        expectOneIndexScan(await planOf(db, q, planner), 'token_balances_by_holder');
      }
    }
    expectOneIndexScan(await planOf(db, holdingsQuery({ chainId: CHAIN, holder: OWNER, type: 'ERC-20', offset: 0, limit: 10_000, sort: 'desc' }), planner), 'token_balances_by_holder');
    // restricted tokens left out: still the one range scan, the list checked per row
    const hidden = [addressOf(1, 'restricted'), addressOf(2, 'restricted')];
    expectOneIndexScan(await planOf(db, holdingsQuery({ chainId: CHAIN, holder: OWNER, type: 'ERC-20', offset: 8_900, limit: 100, sort: 'asc', hidden }), planner), 'token_balances_by_holder');
  });

  it('the holdings really are 10,000 deep: the ERC-20 pages return all 9,000, in token order', async () => {
    const rows: string[] = [];
    for (let offset = 0; ; offset += 1_000) {
      const q = holdingsQuery({ chainId: CHAIN, holder: OWNER, type: 'ERC-20', offset, limit: 1_000, sort: 'asc' });
      const page = await db.query<{ token: string }>(q.text, q.args, { prepare: true });
      if (page.length === 0) break;
      rows.push(...page.map((r) => r.token));
    }
    expect(rows).toHaveLength(OWNED - OWNED / 10);
    expect([...rows].sort()).toEqual(rows);
  });

  it.each(PLANNERS)('tokenholderlist, %s plan: the top page and a page at depth 100,000, both directions', async (planner) => {
    for (const sort of ['desc', 'asc'] as const) {
      for (const offset of [0, 100_000]) {
        expectOneIndexScan(await planOf(db, holdersWindowQuery({ chainId: CHAIN, token: TOKEN, offset, limit: 1_000, sort }), planner), 'token_balances_page');
      }
    }
    const q = holdersWindowQuery({ chainId: CHAIN, token: TOKEN, offset: 100_000, limit: 3, sort: 'desc' });
    const rows = await db.query<{ value: string }>(q.text, q.args, { prepare: true });
    expect(rows.map((r) => r.value)).toEqual([HOLDERS - 100_000, HOLDERS - 100_001, HOLDERS - 100_002].map((i) => String(i * 1000)));
  });

  it.each(PLANNERS)('getminedblocks, %s plan: the last page of the 10,000-row window', async (planner) => {
    for (const sort of ['desc', 'asc'] as const) {
      const q = minedBlocksQuery({ chainId: CHAIN, miner: MINER, kind: 'blocks', offset: 9_000, limit: 1_000, sort });
      expectOneIndexScan(await planOf(db, q, planner), 'blocks_by_miner');
    }
  });

  it.each(PLANNERS)('getblocknobytime, %s plan: one probe at either end of the time index', async (planner) => {
    for (const closest of ['before', 'after'] as const) {
      const q = blockByTimeQuery({ chainId: CHAIN, timestamp: 1_700_000_000n + 12n * 1_000n + 5n, closest });
      expectOneIndexScan(await planOf(db, q, planner), 'blocks_consensus_timestamp');
      const [row] = await db.query<{ number: string }>(q.text, q.args, { prepare: true });
      // two blocks a second: 2,000 and 2,001 share the time at or before, 2,002 is the first after
      expect(row!.number).toBe(closest === 'before' ? '2001' : '2002');
    }
  });
});
