/**
 * The plans a page statement can really get, on both engines:
 * - custom: planned with the page's own parameter values bound;
 * - generic: the prepared statement's plan without them (`plan_cache_mode =
 *   force_generic_plan`). PostgreSQL may switch a prepared statement to its generic plan after
 *   five runs, and the API prepares its page statements (`query(…, { prepare: true })`), so
 *   the generic plan is the one a busy server runs. On PostgreSQL the statement is prepared by
 *   that same call on one connection and EXPLAIN EXECUTEd by the name it got; PGlite runs
 *   statements unnamed, so there it is PREPAREd with the same text. pg_prepared_statements'
 *   counters prove the plan shown was the generic one.
 */
import { expect } from 'vitest';
import type { Database, Queryable } from '../../src/db/client.js';
import { arrayLiteral } from '../../src/db/array-literal.js';

export interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  /** what bounds the index range, as the planner prints it */
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

export interface Statement {
  text: string;
  args: unknown[];
}

export type Planner = 'custom' | 'generic';

const flatten = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(flatten)];

function planNodes(rows: Array<{ 'QUERY PLAN': unknown }>): PlanNode[] {
  const raw = rows[0]!['QUERY PLAN'];
  const json = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: PlanNode }>;
  return flatten(json[0]!.Plan);
}

/** A parameter as an SQL literal, for EXECUTE (whose arguments cannot be bound). */
function literal(value: unknown): string {
  const text = Buffer.isBuffer(value) ? `\\x${value.toString('hex')}` : Array.isArray(value) ? String(arrayLiteral(value)) : String(value);
  return `'${text.replaceAll("'", "''")}'`;
}

let prepared = 0;

async function prepareAsTheApiDoes(db: Database, tx: Queryable, q: Statement): Promise<string> {
  if (db.engine === 'pglite') {
    const name = `plan_check_${++prepared}`;
    await tx.query(`PREPARE ${name} AS ${q.text}`);
    return name;
  }
  await tx.query(q.text, q.args, { prepare: true });
  const [row] = await tx.query<{ name: string }>('SELECT name FROM pg_prepared_statements WHERE statement = $1', [q.text]);
  expect(row?.name, 'the statement the API prepared').toMatch(/^explorer_/);
  return row!.name;
}

/** Every node of the plan `planner` gives the statement, top first. */
export async function planOf(db: Database, q: Statement, planner: Planner): Promise<PlanNode[]> {
  if (planner === 'custom') return planNodes(await db.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${q.text}`, q.args));
  return db.transaction(async (tx) => {
    await tx.query('SET LOCAL plan_cache_mode = force_generic_plan');
    const name = await prepareAsTheApiDoes(db, tx, q);
    const counts = async () =>
      (
        await tx.query<{ generic_plans: string; custom_plans: string }>(
          'SELECT generic_plans::text, custom_plans::text FROM pg_prepared_statements WHERE name = $1',
          [name],
        )
      )[0]!;
    // (the connection may have run the statement before, with either plan)
    const before = await counts();
    const rows = await tx.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) EXECUTE ${name}(${q.args.map(literal).join(', ')})`);
    const after = await counts();
    expect(Number(after.generic_plans), `${name}: generic plans`).toBe(Number(before.generic_plans) + 1);
    expect(after.custom_plans, `${name}: custom plans`).toBe(before.custom_plans);
    if (db.engine === 'pglite') await tx.query(`DEALLOCATE ${name}`);
    return planNodes(rows);
  });
}

/**
 * One range scan of `index`, rows in its order: no Sort, no sequential or bitmap scan
 * anywhere, and each other relation read by index probes only.
 */
export function expectOneIndexScan(nodes: PlanNode[], index: string): void {
  const types = nodes.map((n) => n['Node Type']);
  const shape = JSON.stringify(nodes.map((n) => [n['Node Type'], n['Index Name'] ?? n['Relation Name'] ?? '']));
  for (const forbidden of ['Sort', 'Incremental Sort', 'Seq Scan', 'Bitmap Heap Scan', 'Hash Join', 'Merge Join']) {
    expect(types, shape).not.toContain(forbidden);
  }
  const scans = nodes.filter((n) => n['Index Name'] === index);
  expect(scans, shape).toHaveLength(1);
  expect(scans[0]!['Node Type'], shape).toMatch(/^Index (Only )?Scan( Backward)?$/);
}
