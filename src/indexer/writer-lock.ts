import { DatabaseUnavailableError, type Database, type Session } from '../db/client.js';
import { sleep } from '../rpc/backoff.js';
import { ConfigError } from '../config/setting.js';
import type { Logger } from './reorg.js';

/** how often a waiting writer asks again */
const RETRY_MS = 2_000;

export interface WriterLock {
  /** rejects if the lock's connection is lost: another process may be writing the chain now */
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

const HELD_BY_NOBODY: WriterLock = { lost: new Promise<never>(() => undefined), release: async () => undefined };

/**
 * One writer per chain. Two processes indexing one chain into one PostgreSQL would each apply
 * every block's balance changes, and the balances would stay wrong (an outside review saw it in
 * an overlapping rolling deploy). So a chain's pipeline first takes a session advisory lock keyed
 * by its chain id, on a connection of its own, and holds it while it runs. A second writer waits,
 * saying so, until the first stops: its connection closes then, also when it is killed.
 * PGlite needs none: the data directory's lock lets one process in.
 *
 * Null when `signal` aborts while waiting.
 */
export async function takeWriterLock(db: Database, chainId: number, logger: Logger, signal: AbortSignal): Promise<WriterLock | null> {
  if (!db.openSession) return HELD_BY_NOBODY;
  let session: Session | null = null;
  let told = false;
  try {
    while (!signal.aborted) {
      try {
        session ??= await db.openSession();
        if (await tryLock(session, chainId)) {
          if (told) logger.info({ chainId }, 'the other writer of this chain stopped: indexing');
          const held = session;
          session = null;
          const lost = held.lost.catch((error: unknown) => {
            throw new WriterLockLostError(`chain ${chainId}: lost the database connection that holds this process's writer lock (${error instanceof Error ? error.message : String(error)}); stopping, so that no second writer overlaps`);
          });
          lost.catch(() => undefined);
          return { lost, release: () => held.close() };
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
