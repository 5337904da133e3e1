/** Where the killed processes keep their data: a PGlite directory or a PostgreSQL database, opened only between runs. */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '../../src/db/client.js';
import { freshDatabase, type Engine } from './databases.js';

export interface CrashTarget {
  engine: Engine;
  dataDir: string;
  databaseUrl: string | null;
  /**
   * Runs `fn` on the database as the last killed process left it, without changing what the next
   * process will open: a PGlite data dir is copied first, since opening it replays the WAL and
   * would turn a crashed directory into a cleanly shut down one. null if nothing was written yet.
   */
  inspect<T>(fn: (db: Database) => Promise<T>): Promise<T | null>;
  drop(): Promise<void>;
}

async function settled(db: Database, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await db.query<{ busy: string }>(
      `SELECT count(*)::text AS busy FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND state IS DISTINCT FROM 'idle'`,
    );
    if (row!.busy === '0' || Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function crashTarget(engine: Engine): Promise<CrashTarget> {
  const dataDir = mkdtempSync(join(tmpdir(), 'explorer-crash-'));
  if (engine === 'postgres') {
    const fresh = await freshDatabase('postgres');
    return {
      engine,
      dataDir,
      databaseUrl: fresh.url,
      // A SIGKILLed client's last COMMIT may still be running on the server: read only once
      // no other session of this database is mid-statement or mid-transaction, or a check
      // could see the progress row from before that commit and the blocks from after it.
      inspect: async (fn) => {
        await settled(fresh.db);
        return fn(fresh.db);
      },
      drop: async () => {
        await fresh.drop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  return {
    engine,
    dataDir,
    databaseUrl: null,
    async inspect(fn) {
      if (!existsSync(join(dataDir, 'pgdata', 'PG_VERSION'))) return null;
      const copy = mkdtempSync(join(tmpdir(), 'explorer-crash-copy-'));
      try {
        cpSync(join(dataDir, 'pgdata'), join(copy, 'pgdata'), { recursive: true });
        const db = await openDatabase({ dataDir: copy });
        try {
          // a kill after the data directory was made but before the migrations committed (one
          // transaction for all of them): nothing is written yet
          const [schema] = await db.query<{ migrated: boolean }>("SELECT to_regclass('chains') IS NOT NULL AS migrated");
          if (!schema?.migrated) return null;
          return await fn(db);
        } finally {
          await db.close();
        }
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    },
    drop: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}
