/**
 * One writer per chain on PostgreSQL: a second `explorer index` of the same chain into the same
 * database (an overlapping rolling deploy) waits for the first instead of applying every block's
 * balance changes a second time, and takes over when the first dies (here: SIGKILL mid-backfill).
 * The database must then equal the node. Without the lock this ended with a third of the
 * balances wrong (outside review).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/anvil.js';
import {
  buildCrashChain, compareWithNode, crashTarget, describeReport, isPipelineStart, killHard, mismatchCount, spawnIndexer,
  type CrashChain, type IndexerProcess, type LogLine,
} from '../support/crash-harness.js';
import { freshDatabase, postgresAvailable } from '../support/databases.js';
import { openDatabase } from '../../src/db/client.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { takeWriterLock, WriterLockLostError } from '../../src/indexer/writer-lock.js';
import { rootSettings } from '../../src/config/settings.js';
import { DatabaseUnavailableError, type Database } from '../../src/db/client.js';
import { migrate, NewerDatabaseError } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';

const quietLogger = { info: () => undefined, warn: () => undefined, debug: () => undefined, error: () => undefined };

/**
 * A fresh PostgreSQL database with the chain registered, a second connection pool to it (another
 * process's), a stop signal, and a gate a test's open transaction waits at; all closed after.
 */
async function withTwoWriters(fn: (t: { db: Database; other: Database; signal: AbortSignal; gate: { held: Promise<void>; open(): void } }) => Promise<void>): Promise<void> {
  const fresh = await freshDatabase('postgres');
  const other = await openDatabase({ databaseUrl: fresh.url! });
  const stop = new AbortController();
  let open!: () => void;
  const held = new Promise<void>((r) => (open = r));
  try {
    await ensureChain(fresh.db, CHAIN_ID);
    await fn({ db: fresh.db, other, signal: stop.signal, gate: { held, open } });
  } finally {
    stop.abort();
    await other.close();
    await fresh.drop();
  }
}

const CHAIN_ID = 31337;
const WAITING = 'another process is indexing this chain into this database: waiting for it to stop (one writer per chain)';
const TOOK_OVER = 'the other writer of this chain stopped: indexing';
const LEASE_MS = rootSettings.writerLeaseMs.default;
const committed = (l: LogLine) => l.msg === 'batch committed';

describe.runIf(await postgresAvailable())('two `explorer index` processes on one chain and one PostgreSQL', () => {
  let node: TestNode;
  let chain: CrashChain;

  beforeAll(async () => {
    node = await startTestNode();
    chain = await buildCrashChain(node, {
      bulk: { transfers: 3_000, tokens: 2, holders: 300, transfersPerTx: 20, txsPerBlock: 2, seed: 'writer-lock' },
      miners: 2,
      emptyBlocks: 200,
      seed: 'writer-lock',
    });
  }, 300_000);
  afterAll(async () => {
    await node?.stop();
  });
  const atHead = (l: LogLine) => (committed(l) && BigInt(String(l.indexed)) >= chain.head) || (isPipelineStart(l) && BigInt(String(l.from)) > chain.head);

  it('the second waits while the first writes, takes over when it is killed, and the database equals the node', async () => {
    const target = await crashTarget('postgres');
    const spawn = () => spawnIndexer({ chainId: CHAIN_ID, rpcUrl: node.url, dataDir: target.dataDir, databaseUrl: target.databaseUrl, env: { LOG_LEVEL: 'debug' } });
    const first = spawn();
    let second: IndexerProcess | null = null;
    try {
      await first.waitForLog(committed, 120_000);
      second = spawn();
      await second.waitForLog((l) => l.msg === WAITING, 60_000);
      // a moment of both running: the first goes on, the second writes nothing
      await new Promise((r) => setTimeout(r, 3_000));
      expect(second.logs.filter(committed)).toEqual([]);
      expect(first.child.exitCode).toBeNull();
      const killedAt = Date.now();
      expect((await killHard(first)).signal).toBe('SIGKILL');
      await second.waitForLog((l) => l.msg === TOOK_OVER, 60_000);
      await second.waitForLog(atHead, 180_000);
      expect(second.logs.filter(committed).every((l) => Number(l.time) >= killedAt)).toBe(true);
      const report = (await target.inspect((db) => compareWithNode(db, { url: node.url, chainId: CHAIN_ID, holdings: chain.holdings, balanceOfTokens: chain.balanceOfTokens })))!;
      console.log(`two writers, one chain: ${describeReport(report)}`);
      expect(mismatchCount(report), describeReport(report)).toBe(0);
      expect(report.indexedBlock).toBeGreaterThanOrEqual(chain.head);
    } finally {
      await killHard(first).catch(() => undefined);
      if (second) await killHard(second).catch(() => undefined);
      await target.drop();
    }
  }, 600_000);

  it('a frozen writer (SIGSTOP) loses the chain after its lease; the one waiting takes over; resumed, it writes nothing and waits', async () => {
    const target = await crashTarget('postgres');
    const lease = 5_000;
    const spawn = () =>
      spawnIndexer({ chainId: CHAIN_ID, rpcUrl: node.url, dataDir: target.dataDir, databaseUrl: target.databaseUrl, env: { LOG_LEVEL: 'debug', EXPLORER_WRITER_LEASE_MS: String(lease) } });
    const first = spawn();
    let second: IndexerProcess | null = null;
    try {
      await first.waitForLog(committed, 120_000);
      second = spawn();
      await second.waitForLog((l) => l.msg === WAITING, 60_000);
      // frozen, not dead: its connections stay open, so only the lease can free the chain
      const frozenAt = Date.now();
      first.child.kill('SIGSTOP');
      const tookOver = await second.waitForLog((l) => l.msg === TOOK_OVER, 60_000);
      expect(Number(tookOver.time) - frozenAt).toBeGreaterThanOrEqual(lease - 500);
      await second.waitForLog(atHead, 180_000);
      const resumedAt = Date.now();
      first.child.kill('SIGCONT');
      await first.waitForLog((l) => l.msg === 'lost the writer lock: taking it again', 60_000);
      await first.waitForLog((l) => l.msg === WAITING && Number(l.time) >= resumedAt, 60_000);
      // the resumed writer rolled back whatever it had open and committed nothing since it froze
      expect(first.logs.filter((l) => committed(l) && Number(l.time) >= frozenAt)).toEqual([]);
      expect(second.child.exitCode).toBeNull();
      const report = (await target.inspect((db) => compareWithNode(db, { url: node.url, chainId: CHAIN_ID, holdings: chain.holdings, balanceOfTokens: chain.balanceOfTokens })))!;
      console.log(`a frozen writer and a waiting one: ${describeReport(report)}`);
      expect(mismatchCount(report), describeReport(report)).toBe(0);
      expect(report.indexedBlock).toBeGreaterThanOrEqual(chain.head);
    } finally {
      first.child.kill('SIGCONT');
      await killHard(first).catch(() => undefined);
      if (second) await killHard(second).catch(() => undefined);
      await target.drop();
    }
  }, 600_000);

  it("a transaction its writer leaves open longer than the lease is ended by the server, and its row locks with it", () =>
    withTwoWriters(async ({ db, other, signal, gate }) => {
      const lock = (await takeWriterLock(db, CHAIN_ID, quietLogger, signal, 1_500))!;
      const batch = lock.db.transaction(async (tx) => {
        await tx.query('UPDATE chains SET indexed_block = 5 WHERE chain_id = $1', [CHAIN_ID]);
        await gate.held;
        await tx.query('SELECT 1');
      });
      // the row the open transaction holds is free again once the lease has run out
      const started = Date.now();
      await other.query('UPDATE chains SET head_block = 9 WHERE chain_id = $1', [CHAIN_ID]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
      gate.open();
      await expect(batch).rejects.toBeInstanceOf(DatabaseUnavailableError);
      expect(await other.query('SELECT indexed_block::text AS i, head_block::text AS h FROM chains WHERE chain_id = $1', [CHAIN_ID])).toEqual([{ i: null, h: '9' }]);
      // the lock itself is kept by its heartbeat
      expect(await Promise.race([lock.lost.then(() => 'kept', () => 'lost'), new Promise((r) => setTimeout(() => r('kept'), 2_000))])).toBe('kept');
      await lock.release();
    }), 60_000);

  it('a writer that lost its lock mid-transaction cannot commit it once another took over (the fence)', () =>
    withTwoWriters(async ({ db, other: second, signal, gate }) => {
      const first = (await takeWriterLock(db, CHAIN_ID, quietLogger, signal, LEASE_MS))!;
      // the first writer's batch: a row written, not yet committed, when its lock's connection goes
      const batch = first.db.transaction(async (tx) => {
        await tx.query(`INSERT INTO api_keys (name, key_hash, prefix) VALUES ('stale writer', 'stale', 'stale')`);
        await gate.held;
      });
      const [lockHolder] = await db.query<{ pid: number }>(
        `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      await db.query('SELECT pg_terminate_backend($1)', [lockHolder!.pid]);
      await expect(first.lost).rejects.toBeInstanceOf(WriterLockLostError);
      // another process takes the chain over while that transaction is still open
      const secondLock = (await takeWriterLock(second, CHAIN_ID, quietLogger, signal, LEASE_MS))!;
      gate.open();
      await expect(batch).rejects.toBeInstanceOf(WriterLockLostError);
      expect(await second.query(`SELECT 1 FROM api_keys WHERE name = 'stale writer'`)).toEqual([]);
      // the new writer's transactions go through
      await secondLock.db.transaction(async (tx) => tx.query('UPDATE chains SET indexed_block = 7 WHERE chain_id = $1', [CHAIN_ID]));
      expect(await second.query('SELECT indexed_block::text AS b FROM chains WHERE chain_id = $1', [CHAIN_ID])).toEqual([{ b: '7' }]);
      await secondLock.release();
      await first.release();
    }), 60_000);

  it('a writer running when a newer version migrates: its next commit is rolled back, and it cannot take the chain again', () =>
    withTwoWriters(async ({ db, other, signal }) => {
      const lock = (await takeWriterLock(db, CHAIN_ID, quietLogger, signal, LEASE_MS))!;
      await lock.db.transaction(async (tx) => tx.query('UPDATE chains SET indexed_block = 3 WHERE chain_id = $1', [CHAIN_ID]));
      // another process, of a version with one more migration, starts on this database
      expect(await migrate(other, [...migrations, { id: '999_a_newer_version', sql: 'SELECT 1' }])).toEqual(['999_a_newer_version']);
      const batch = lock.db.transaction(async (tx) => tx.query('UPDATE chains SET indexed_block = 4 WHERE chain_id = $1', [CHAIN_ID]));
      await expect(batch).rejects.toBeInstanceOf(WriterLockLostError);
      expect(await other.query('SELECT indexed_block::text AS b FROM chains WHERE chain_id = $1', [CHAIN_ID])).toEqual([{ b: '3' }]);
      await lock.release();
      // what the pipeline does on a lost lock (indexer/run.ts): take it again, refused by name
      const again = await takeWriterLock(db, CHAIN_ID, quietLogger, signal, LEASE_MS).catch((error: unknown) => error);
      expect(again).toBeInstanceOf(NewerDatabaseError);
      expect((again as Error).message).toMatch(/migrations 999_a_newer_version/);
    }), 60_000);

  it('the lock outlives an idle-connection reaper (idle_session_timeout): its connection keeps talking', async () => {
    const fresh = await freshDatabase('postgres');
    const name = new URL(fresh.url!).pathname.slice(1);
    await fresh.db.query(`ALTER DATABASE ${name} SET idle_session_timeout = '3s'`);
    const db = await openDatabase({ databaseUrl: fresh.url! });
    const stop = new AbortController();
    try {
      await ensureChain(db, CHAIN_ID);
      // no lease of its own (0), so the database's 3 s is what the heartbeat must outlive
      const lock = (await takeWriterLock(db, CHAIN_ID, quietLogger, stop.signal, 0))!;
      const outcome = await Promise.race([lock.lost.then(() => 'kept', () => 'lost'), new Promise((r) => setTimeout(() => r('kept'), 9_000))]);
      expect(outcome).toBe('kept');
      await lock.release();
    } finally {
      stop.abort();
      await db.close();
      await fresh.drop();
    }
  }, 60_000);
});
