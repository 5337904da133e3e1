import { randomUUID } from 'node:crypto';
import { DatabaseUnavailableError, type Database, type Session } from '../db/client.js';
import { sleep } from '../rpc/backoff.js';
import { ConfigError } from '../config/setting.js';
import type { Logger } from './logger.js';
import { refuseNewerSchema } from '../db/migrate.js';

/** how often a waiting writer asks again */
const RETRY_MS = 2_000;
/**
 * The lock's connection says something this often, so that no idle-connection reaper ends it,
 * nor its own lease (`writerLeaseMs`, at least 5 s: a few beats missed, not one late).
 */
const HEARTBEAT_MS = 1_000;

export interface WriterLock {
  /** the chain's database for this writer: each transaction is fenced (see `fenced`) */
  readonly db: Database;
  /** rejects if the lock's connection is lost: another process may take the chain over */
  readonly lost: Promise<never>;
  release(): Promise<void>;
}

export class WriterLockLostError extends Error {
  override name = 'WriterLockLostError';
}

/** The chain's lock on this session, if no other session holds it (held until the session ends). */
async function tryLock(session: Session, chainId: number): Promise<boolean> {
  const [row] = await session.query<{ locked: boolean }>(
    `SELECT pg_try_advisory_lock(hashtextextended('explorer: the writer of chain ' || $1::text, 0)) AS locked`,
    [chainId],
  );
  return row!.locked;
}

/**
 * Runs `fn` as the chain's writer, or refuses at once when a process indexes the chain
 * (PostgreSQL; on PGlite the data directory's lock already keeps every other process out).
 */
export async function asChainWriter<T>(db: Database, chainId: number, fn: () => Promise<T>): Promise<T> {
  if (!db.openSession) return fn();
  const session = await db.openSession();
  try {
    if (!(await tryLock(session, chainId))) throw new ConfigError(`chain ${chainId} is being indexed by a running process: stop it first`);
    return await fn();
  } finally {
    await session.close();
  }
}

/** What the fence raises when the token is gone (a class of SQLSTATE that PostgreSQL leaves free). */
const FENCE_REFUSED = 'XW001';

/**
 * `db` whose every transaction ends by touching the chain's row with this writer's token
 * (migration 026): if another writer has taken the chain over since, the transaction rolls back
 * with WriterLockLostError; if not, the row lock holds a takeover back until it has committed, so
 * the new writer starts from what this one wrote, never beside it. The lease and the fence go with
 * the BEGIN and the COMMIT (TransactionOptions): two round trips a transaction fewer. The chain id
 * and the token (a UUID this process made) are written into them as literals, which a simple
 * query needs.
 */
function fenced(db: Database, chainId: number, token: string, leaseMs: number): Database {
  if (!Number.isSafeInteger(chainId) || !/^[0-9a-f-]+$/.test(token)) throw new Error('a chain id and a UUID are written into the fence');
  // a transaction left open by a writer that went silent (frozen mid-batch) holds its rows'
  // locks, which the writer taking over would wait on: the server ends it after the lease
  const lease = leaseMs > 0 ? `SET LOCAL idle_in_transaction_session_timeout = ${Math.round(leaseMs)}` : undefined;
  const fence = `DO $fence$ BEGIN
    UPDATE chains SET writer = writer WHERE chain_id = ${chainId} AND writer = '${token}';
    IF NOT FOUND THEN RAISE EXCEPTION 'the writer token is gone' USING ERRCODE = '${FENCE_REFUSED}'; END IF;
  END $fence$`;
  const both = (a: string | undefined, b: string | undefined) => [a, b].filter(Boolean).join('; ') || undefined;
  return {
    ...db,
    transaction: async (fn, options) => {
      try {
        return await db.transaction(fn, { afterBegin: both(lease, options?.afterBegin), beforeCommit: both(options?.beforeCommit, fence) });
      } catch (error) {
        if ((error as { code?: unknown }).code !== FENCE_REFUSED) throw error;
        throw new WriterLockLostError(
          `chain ${chainId}: this writer's token is gone (another process took the chain over, or a newer version migrated the database); its last transaction was rolled back`,
        );
      }
    },
  };
}

const UNFENCED = (db: Database): WriterLock => ({ db, lost: new Promise<never>(() => undefined), release: async () => undefined });

/**
 * One writer per chain. Two processes indexing one chain into one PostgreSQL would each apply
 * every block's balance changes, and the balances would stay wrong (an outside review saw it in
 * an overlapping rolling deploy). So a chain's pipeline first takes a session advisory lock keyed
 * by its chain id, on a connection of its own, and holds it while it runs; it writes a token of
 * its own into the chain's row, and its transactions are fenced by it (`fenced`). A second
 * writer waits, saying so, until the first stops: its connection closes then, also when it is
 * killed, or, when it goes silent (a frozen process, a paused VM: the connection stays open),
 * once the server has ended its lock's session after `leaseMs` of silence (`idle_session_timeout`;
 * a healthy writer's heartbeat keeps it). PGlite needs none: the data directory's lock lets one
 * process in.
 *
 * Null when `signal` aborts while waiting.
 */
export async function takeWriterLock(db: Database, chainId: number, logger: Logger, signal: AbortSignal, leaseMs: number): Promise<WriterLock | null> {
  if (!db.openSession) return UNFENCED(db);
  let session: Session | null = null;
  let told = false;
  try {
    while (!signal.aborted) {
      try {
        session ??= await db.openSession();
        if (await tryLock(session, chainId)) {
          // (a newer version that migrated has taken this writer's token: it must not write on)
          await refuseNewerSchema(session);
          await lease(session, leaseMs, chainId, logger);
          const token = randomUUID();
          await session.query(
            `INSERT INTO chains (chain_id, writer) VALUES ($1, $2) ON CONFLICT (chain_id) DO UPDATE SET writer = excluded.writer`,
            [chainId, token],
          );
          if (told) logger.info({ chainId }, 'the other writer of this chain stopped: indexing');
          const held = session;
          session = null;
          return holding(held, db, chainId, token, leaseMs);
        }
        if (!told) logger.warn({ chainId }, 'another process is indexing this chain into this database: waiting for it to stop (one writer per chain)');
        told = true;
      } catch (error) {
        if (!(error instanceof DatabaseUnavailableError)) throw error;
        await session?.close();
        session = null;
        logger.warn({ chainId, err: error.message }, 'database unavailable while taking the writer lock; retrying');
      }
      await sleep(RETRY_MS, signal).catch(() => undefined);
    }
    return null;
  } finally {
    await session?.close();
  }
}

/**
 * Has the server end the lock's session after `leaseMs` without a statement (only once the lock
 * is held: a waiting writer asks less often). A server without `idle_session_timeout`
 * (PostgreSQL before 14) keeps the session: said once, and the lock then lasts until its
 * connection closes.
 */
async function lease(session: Session, leaseMs: number, chainId: number, logger: Logger): Promise<void> {
  if (leaseMs <= 0) return;
  try {
    await session.query(`SELECT set_config('idle_session_timeout', $1, false)`, [String(leaseMs)]);
  } catch (error) {
    if (!(error instanceof Error && /idle_session_timeout/.test(error.message))) throw error;
    logger.warn({ chainId }, 'this PostgreSQL has no idle_session_timeout (before 14): a frozen writer keeps the chain until its connection closes');
  }
}

function holding(session: Session, db: Database, chainId: number, token: string, leaseMs: number): WriterLock {
  // (a heartbeat that fails for a lost connection: the session's `lost` says so)
  const heartbeat = setInterval(() => void session.query('SELECT 1').catch(() => undefined), HEARTBEAT_MS);
  heartbeat.unref();
  const lost = session.lost.catch((error: unknown) => {
    clearInterval(heartbeat);
    throw new WriterLockLostError(`chain ${chainId}: lost the database connection that holds this process's writer lock (${error instanceof Error ? error.message : String(error)})`);
  });
  lost.catch(() => undefined);
  return {
    db: fenced(db, chainId, token, leaseMs),
    lost,
    release: async () => {
      clearInterval(heartbeat);
      await session.close();
    },
  };
}
