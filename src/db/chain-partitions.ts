import type { Queryable } from './client.js';

/**
 * Where a chain's balances and history live (migration 024): a partition of their own per chain
 * whose indexing started afresh, the DEFAULT partitions for chains indexed before.
 *
 * A chain's own partitions are made at its first batch with only the balance key the upsert
 * needs: the backfill writes without the page indexes (the holders orders, an address's holdings,
 * the history's keys), whose row-by-row maintenance was most of a balance write's cost
 * (BENCHMARKS.md, "The backfill path"). `finishBackfill` builds them in bulk once the indexer
 * nears the head. Whether a chain is backfilling is read from the catalog, not kept beside it: a
 * crash at any moment leaves either the indexes or their absence, and the next start carries on.
 * Pages stay correct meanwhile, read by a scan and a sort where the index is missing.
 *
 * Each index of a chain's partition is the default partition's same-named index, copied: the
 * migrations define each index once.
 */
const TABLES = ['token_balances', 'balance_intervals'] as const;
type PartitionedTable = (typeof TABLES)[number];

export type PartitionState = 'default' | 'backfilling' | 'indexed';

/** The one naming rule of a chain's partitions and their index copies; `id` is the chain id's digits. */
const partitionNamed = (table: PartitionedTable, id: string) => `${table}_${id}`;
const copyNamed = (table: PartitionedTable, id: string, index: string) =>
  `${partitionNamed(table, id)}_${index.startsWith(`${table}_`) ? index.slice(table.length + 1) : index}`;
/** A chain id as the digits the names carry (checked a number: no quoting needed in DDL). */
const digits = (chainId: number) => BigInt(chainId).toString();
const partitionName = (table: PartitionedTable, chainId: number) => partitionNamed(table, digits(chainId));
/** The index whose copy finishBackfill builds last, so that its presence tells the build is done. */
const LAST_INDEX = 'token_balances_page';

interface IndexCopy {
  name: string;
  definition: string;
}

/** The default partition's own indexes (not the key the parent gives every partition), as they would be on `chainId`'s. */
async function indexCopies(db: Queryable, table: PartitionedTable, chainId: number): Promise<IndexCopy[]> {
  const rows = await db.query<{ name: string; definition: string }>(
    `SELECT c.relname AS name, pg_get_indexdef(c.oid) AS definition
     FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     WHERE i.indrelid = to_regclass($1) AND NOT EXISTS (SELECT 1 FROM pg_inherits h WHERE h.inhrelid = c.oid)
     ORDER BY c.relname`,
    [`${table}_default`],
  );
  const partition = partitionName(table, chainId);
  return rows.map(({ name, definition }) => {
    const copy = copyNamed(table, digits(chainId), name);
    const match = /^CREATE (UNIQUE )?INDEX \S+ ON (?:ONLY )?\S+ (.*)$/s.exec(definition);
    if (!match) throw new Error(`unexpected index definition for ${name}: ${definition}`);
    return { name: copy, definition: `CREATE ${match[1] ?? ''}INDEX IF NOT EXISTS ${copy} ON ${partition} ${match[2]}` };
  });
}

/**
 * Whether the chain's rows are in partitions of their own and, if so, whether every index of
 * the default partitions has its copy there (a build cut short, or an index an operator dropped
 * by hand, is a backfill to finish).
 */
export async function partitionState(db: Queryable, chainId: number): Promise<PartitionState> {
  const own = TABLES.map((table) => partitionName(table, chainId));
  const rows = await db.query<{ name: string | null; own: boolean }>(
    `SELECT i.indexname AS name, to_regclass($1) IS NOT NULL AS own
     FROM (SELECT 1) one LEFT JOIN pg_indexes i ON i.schemaname = current_schema() AND i.tablename = ANY($2::text[])`,
    [own[0], own],
  );
  if (!rows[0]!.own) return 'default';
  const built = new Set(rows.map((r) => r.name));
  for (const table of TABLES) {
    for (const copy of await indexCopies(db, table, chainId)) if (!built.has(copy.name)) return 'backfilling';
  }
  return 'indexed';
}

/**
 * SQL: whether the chain whose id is the expression `chainId` is backfilling, for listings of
 * every chain in one statement: its own balances partition exists without the copy of
 * token_balances_page (finishBackfill builds that copy last, so it tells). The
 * names are the TS rule's above, with the id spliced in as SQL.
 */
export const backfillingSql = (chainId: string) => {
  const ID = '\u0000';
  const named = (name: string) => `('${name.split(ID).join(`' || ${chainId} || '`)}')`;
  const own = named(partitionNamed('token_balances', ID));
  const page = named(copyNamed('token_balances', ID, LAST_INDEX));
  return `(to_regclass(${own}) IS NOT NULL AND to_regclass(${page}) IS NULL)`;
};

/**
 * Gives a chain that has no balance rows yet its own partitions, without their page indexes:
 * its indexing starts as a backfill. A chain already in the default partitions stays there.
 * Returns the chain's state after. Run it in a transaction: both partitions, or neither.
 */
export async function startBackfill(db: Queryable, chainId: number): Promise<PartitionState> {
  const state = await partitionState(db, chainId);
  if (state !== 'default') return state;
  const [held] = await db.query<{ rows: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM token_balances_default WHERE chain_id = $1)
         OR EXISTS (SELECT 1 FROM balance_intervals_default WHERE chain_id = $1) AS rows`,
    [chainId],
  );
  if (held!.rows) return 'default';
  const id = digits(chainId);
  for (const table of TABLES) await db.query(`CREATE TABLE IF NOT EXISTS ${partitionName(table, chainId)} PARTITION OF ${table} FOR VALUES IN (${id})`);
  return 'backfilling';
}

/**
 * How many of the hand-over's statements run at once. On PostgreSQL each takes a connection of
 * the pool and builds on a core of its own (two index builds on one table share its lock); at
 * the hand-over the indexer has nothing else to write, so a remote node's last blocks wait
 * for about half the build (BENCHMARKS.md). PGlite runs them one after another anyway.
 */
const BUILDS_AT_ONCE = 2;

/**
 * Runs `statements` on `db`, `BUILDS_AT_ONCE` at a time, each committing on its own. After a
 * failure no other starts, and it is thrown once those running have ended: nothing is built
 * behind the caller's back.
 */
async function runAtOnce(db: Queryable, statements: readonly string[]): Promise<void> {
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (!failed && next < statements.length) {
      await db.query(statements[next++]!).catch((error: unknown) => {
        failed = true;
        throw error;
      });
    }
  };
  const lanes = await Promise.allSettled(Array.from({ length: Math.min(BUILDS_AT_ONCE, statements.length) }, lane));
  const failure = lanes.find((l): l is PromiseRejectedResult => l.status === 'rejected');
  if (failure) throw failure.reason;
}

/**
 * Builds a backfilled chain's page indexes in bulk (those not there yet) and refreshes its
 * statistics. Each index is a statement and a transaction of its own, not one transaction for
 * all: on PGlite the API shares the one connection, so a page waits for one index build at
 * most, not the whole hand-over, and a kill keeps what was built (the next start builds the
 * rest). token_balances_page's copy comes last, once the others and the statistics are done:
 * it tells that the build is done (backfillingSql). Call it outside a transaction, with the
 * database (not a transaction's client), so that the builds can take connections of their own.
 */
export async function finishBackfill(db: Queryable, chainId: number): Promise<void> {
  const copies: IndexCopy[] = [];
  for (const table of TABLES) copies.push(...(await indexCopies(db, table, chainId)));
  const lastName = copyNamed('token_balances', digits(chainId), LAST_INDEX);
  const last = copies.find((c) => c.name === lastName);
  if (!last) throw new Error(`no ${lastName} to build: token_balances_default has no ${LAST_INDEX}`);
  await runAtOnce(db, copies.filter((index) => index !== last).map((index) => index.definition));
  await runAtOnce(db, TABLES.map((table) => `ANALYZE ${partitionName(table, chainId)}`));
  await db.query(last.definition);
}

/**
 * Gives every chain already handed over (its own partitions, token_balances_page's copy built)
 * the copies of the default partitions' indexes it lacks: what a migration adding a page index
 * runs, so those chains keep being 'indexed'. A chain still backfilling gets them at its
 * hand-over, with the rest. Run in the migration's transaction.
 */
export async function copyIndexesToIndexedChains(db: Queryable): Promise<void> {
  const chains = await db.query<{ id: string }>(
    `SELECT substr(c.relname, length('token_balances_') + 1) AS id
     FROM pg_inherits h JOIN pg_class c ON c.oid = h.inhrelid
     WHERE h.inhparent = 'token_balances'::regclass AND c.relname ~ '^token_balances_[0-9]+$'`,
  );
  for (const { id } of chains) {
    // handed over: token_balances_page's copy is built last; the copies say IF NOT EXISTS
    const [handedOver] = await db.query<{ built: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS built`, [copyNamed('token_balances', id, LAST_INDEX)]);
    if (!handedOver!.built) continue;
    for (const table of TABLES) for (const copy of await indexCopies(db, table, Number(id))) await db.query(copy.definition);
  }
}

/** Drops the chain's own partitions (and their rows), if it has them. Run it in a transaction. */
export async function dropChainPartitions(db: Queryable, chainId: number): Promise<void> {
  for (const table of TABLES) await db.query(`DROP TABLE IF EXISTS ${partitionName(table, chainId)}`);
}
