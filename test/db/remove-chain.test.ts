/**
 * `explorer chains remove`: everything indexed for one chain goes (a node reset to other
 * blocks needs a fresh index of that chain, a retired chain must stop being served), the other
 * chains and the operator's labels stay, and the chain then indexes afresh equal to its node.
 * Refused while a process indexes the chain (PostgreSQL: its writer lock).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { INDEXED_TABLES, OPERATOR_TABLES, removeChain } from '../../src/db/queries/remove-chain.js';
import { listLabels } from '../../src/db/queries/labels.js';
import { importLabels } from '../../src/labels/store.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { buildCrashChain, compareWithNode, describeReport, killHard, mismatchCount, spawnIndexer, type CrashChain } from '../support/crash-harness.js';
import { availableEngines, freshDatabase, postgresAvailable } from '../support/databases.js';
import { startIndexer } from '../support/indexer-harness.js';
import { runCli } from '../support/cli.js';

const CHAIN = 31337;
const OTHER = 5;

/** Every table (not partition) with a chain_id column. */
async function chainKeyedTables(db: Database): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
       AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'chain_id' AND NOT a.attisdropped)
     ORDER BY 1`,
  );
  return rows.map((r) => r.name);
}

async function rowCounts(db: Database, chainId: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of INDEXED_TABLES) {
    const [row] = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table} WHERE chain_id = $1`, [chainId]);
    counts[table] = Number(row!.n);
  }
  return counts;
}

const engines = await availableEngines();
const withPostgres = await postgresAvailable();

describe('removing a chain', () => {
  let node: TestNode;
  let other: TestNode;
  let chain: CrashChain;

  beforeAll(async () => {
    [node, other] = await Promise.all([startTestNode(), startTestNode({ chainId: OTHER })]);
    chain = await buildCrashChain(node, {
      bulk: { transfers: 400, tokens: 2, holders: 60, transfersPerTx: 20, txsPerBlock: 2, seed: 'remove-chain' },
      miners: 2,
      emptyBlocks: 20,
      scenarioBlocks: 6,
      seed: 'remove-chain',
    });
    await other.mine(5);
  }, 300_000);
  afterAll(async () => {
    await Promise.all([node?.stop(), other?.stop()]);
  });

  it.each(engines)('on %s: its rows go, the other chain and its labels stay, and it indexes afresh equal to the node', async (engine) => {
    const { db, drop } = await freshDatabase(engine);
    try {
      expect((await chainKeyedTables(db)).filter((t) => !([...INDEXED_TABLES, ...OPERATOR_TABLES] as string[]).includes(t))).toEqual([]);
      for (const [url, chainId] of [[node.url, CHAIN], [other.url, OTHER]] as const) {
        const run = await startIndexer(db, url, { chain: { chainId } });
        await run.caughtUp();
        await run.stop();
      }
      const labelled = chain.miners[0]!;
      await importLabels(db, [{ chainId: CHAIN, address: labelled, name: 'Miner one', isScam: false, publicTags: [], metadataTags: [] }]);
      const otherBefore = await rowCounts(db, OTHER);
      expect((await rowCounts(db, CHAIN)).blocks).toBeGreaterThan(0);

      expect(await removeChain(db, CHAIN)).toBe(true);
      const left = await rowCounts(db, CHAIN);
      // the labelled address's row is written again for its label, and nothing else
      expect(left).toEqual({ ...Object.fromEntries(INDEXED_TABLES.map((t) => [t, 0])), addresses: 1 });
      expect(await rowCounts(db, OTHER)).toEqual(otherBefore);
      expect((await listLabels(db, { chainId: CHAIN, limit: 10 })).map((l) => [l.address, l.name])).toEqual([[labelled, 'Miner one']]);
      const [row] = await db.query<{ label_name: string }>('SELECT label_name FROM addresses WHERE chain_id = $1', [CHAIN]);
      expect(row!.label_name).toBe('Miner one');
      expect(await removeChain(db, CHAIN)).toBe(false);

      const again = await startIndexer(db, node.url, { chain: { chainId: CHAIN } });
      await again.caughtUp();
      await again.stop();
      const report = await compareWithNode(db, { url: node.url, chainId: CHAIN, holdings: chain.holdings, balanceOfTokens: chain.balanceOfTokens });
      expect(mismatchCount(report), describeReport(report)).toBe(0);
      expect(report.indexedBlock).toBeGreaterThanOrEqual(chain.head);
    } finally {
      await drop();
    }
  }, 300_000);

  it.runIf(withPostgres)('through the CLI: refused while `explorer index` runs the chain, done once it stopped', async () => {
    const fresh = await freshDatabase('postgres');
    const env = { DATABASE_URL: fresh.url! };
    const indexer = spawnIndexer({ chainId: CHAIN, rpcUrl: node.url, dataDir: '/nonexistent', databaseUrl: fresh.url, env: { LOG_LEVEL: 'debug' } });
    try {
      await indexer.waitForLog((l) => l.msg === 'batch committed', 120_000);
      const refused = await runCli(['chains', 'remove', String(CHAIN), '--yes'], { env });
      expect([refused.code, refused.stderr]).toEqual([1, `explorer: chain ${CHAIN} is being indexed by a running process: stop it first\n`]);
      const unconfirmed = await runCli(['chains', 'remove', String(CHAIN)], { env });
      expect(unconfirmed.code).toBe(1);
      await killHard(indexer);
      const listed = await runCli(['chains', 'list'], { env });
      expect(listed.stdout).toMatch(new RegExp(`^${CHAIN}\\tindexed \\d+\\thead \\d+\\t`));
      const removed = await runCli(['chains', 'remove', String(CHAIN), '--yes'], { env });
      expect([removed.code, removed.stdout]).toEqual([0, expect.stringMatching(new RegExp(`^removed chain ${CHAIN}`))]);
      expect((await runCli(['chains', 'list'], { env })).stdout).toBe('');
      expect((await fresh.db.query('SELECT 1 FROM blocks WHERE chain_id = $1 LIMIT 1', [CHAIN])).length).toBe(0);
    } finally {
      await killHard(indexer).catch(() => undefined);
      await fresh.drop();
    }
  }, 300_000);
});
