import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from './client.js';

/** The migration that brought the writer lock (indexer/writer-lock.ts): a writer before it ignores the lock. */
export const WRITER_LOCK_MIGRATION = '026_chain_writer';

/** A writer of a version before the writer lock is still writing to the database about to get it. */
export class OldWriterRunningError extends Error {
  override readonly name = 'OldWriterRunningError';
  constructor(readonly chainIds: readonly number[]) {
    super(
      `an indexer of a version before the writer lock (migration ${WRITER_LOCK_MIGRATION}) is writing chain ${chainIds.join(', ')} to this database: ` +
        'it would write every block beside this version and count balances twice. Stop every `explorer index` and `explorer start` of the older version, then start this one',
    );
  }
}

/**
 * Before a PostgreSQL database gets the writer lock: refuses while any chain's progress or
 * heartbeat moves during `watchMs`. A version from before that migration writes on regardless of
 * the lock, so a rolling deploy's overlap across it had both versions write every block (an
 * outside review: a third of the balances wrong for good, `/health` ok). Costs `watchMs` once,
 * at that upgrade; a stopped old process moves nothing.
 */
export async function refuseOldWriters(db: Database, pending: ReadonlyArray<{ id: string }>, watchMs: number): Promise<void> {
  if (db.engine !== 'postgres' || !pending.some((m) => m.id === WRITER_LOCK_MIGRATION)) return;
  const [tables] = await db.query<{ migrations: string | null; chains: string | null }>(
    "SELECT to_regclass('schema_migrations')::text AS migrations, to_regclass('chains')::text AS chains",
  );
  if (!tables?.migrations || !tables.chains) return;
  const done = await db.query('SELECT 1 FROM schema_migrations WHERE id = $1', [WRITER_LOCK_MIGRATION]);
  if (done.length > 0) return;
  const progress = async () =>
    new Map(
      (await db.query<{ chain_id: number; at: string }>('SELECT chain_id::int AS chain_id, to_jsonb(c)::text AS at FROM chains c')).map((r) => [
        r.chain_id,
        r.at,
      ]),
    );
  const before = await progress();
  if (before.size === 0) return;
  await sleep(watchMs);
  const moved = [...(await progress())].filter(([chainId, at]) => before.has(chainId) && before.get(chainId) !== at).map(([chainId]) => chainId);
  if (moved.length > 0) throw new OldWriterRunningError(moved);
}
