import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { holdersPageQuery } from '../../src/db/queries/holders.js';
import { blocksValidatedPageQuery } from '../../src/db/queries/blocks.js';
import type { Hex } from '../../src/db/rows.js';
import { freshDatabase, postgresAvailable } from '../support/databases.js';
import { addressOf } from '../support/seed.js';

const CHAIN = 1;
const TOKEN = addressOf(1, 'token');
const MINER = addressOf(1, 'miner');
const HOLDERS = 150_000;
const BLOCKS = 250_000; // MINER mines every second block: 125,000 of them

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

async function plan(db: Database, q: { text: string; args: unknown[] }): Promise<PlanNode[]> {
  const rows = await db.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${q.text}`, q.args);
  const raw = rows[0]!['QUERY PLAN'];
  const json = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: PlanNode }>;
  return nodes(json[0]!.Plan);
}

// Bulk-loaded server-side: values and addresses derived from the row number, so the keyset
// position of a deep page is known without reading the table.
describe.runIf(await postgresAvailable())('each page is one index range scan on PostgreSQL', () => {
  let db: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await freshDatabase('postgres'));
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
    await db.query('ANALYZE token_balances');
    await db.query('ANALYZE blocks');
  }, 180_000);
  afterAll(() => drop?.());

  const expectIndexScanWithoutSort = (planNodes: PlanNode[], index: string) => {
    const types = planNodes.map((n) => n['Node Type']);
    expect(types).not.toContain('Sort');
    expect(types).not.toContain('Incremental Sort');
    expect(types).not.toContain('Seq Scan');
    const scan = planNodes.find((n) => n['Index Name'] === index);
    expect(scan?.['Node Type'], JSON.stringify(types)).toMatch(/^Index (Only )?Scan$/);
  };

  it('holders: top page and a page at depth 100,000', async () => {
    expectIndexScanWithoutSort(await plan(db, holdersPageQuery({ chainId: CHAIN, token: TOKEN, after: null, limit: 51 })), 'token_balances_page');
    const depth = 100_000;
    const i = HOLDERS - depth; // the row at that depth, counting from the largest value
    const after = { value: BigInt(i) * 1000n, holder: `0x${i.toString(16).padStart(40, '0')}` as Hex };
    const deep = holdersPageQuery({ chainId: CHAIN, token: TOKEN, after, limit: 51 });
    expectIndexScanWithoutSort(await plan(db, deep), 'token_balances_page');
    // and it really is that deep: the page starts right after the cursor
    const rows = await db.query<{ value: string }>(deep.text, deep.args);
    expect(rows[0]!.value).toBe(String((i - 1) * 1000));
  });

  it('blocks-validated: top page and a page at depth 100,000 of the miner\'s blocks', async () => {
    expectIndexScanWithoutSort(await plan(db, blocksValidatedPageQuery({ chainId: CHAIN, miner: MINER, beforeNumber: null, limit: 51 })), 'blocks_by_miner');
    const before = BLOCKS - 2 * 100_000;
    const deep = blocksValidatedPageQuery({ chainId: CHAIN, miner: MINER, beforeNumber: BigInt(before), limit: 51 });
    expectIndexScanWithoutSort(await plan(db, deep), 'blocks_by_miner');
    const rows = await db.query<{ number: string }>(deep.text, deep.args);
    expect(Number(rows[0]!.number)).toBe(before - 2);
  });
});
