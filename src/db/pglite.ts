import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Database, Queryable } from './client.js';
import { classifyFailures } from './unavailable.js';
import { withArrayLiterals } from './array-literal.js';
import { lockDataDir } from './data-dir-lock.js';
import { createDataDir } from './pglite-template.js';
import { everyMaintenance } from './pglite-maintenance.js';

/**
 * PostgreSQL settings of the embedded engine, whose memory is the indexer's process's own and
 * never returned: WASM linear memory only grows. PGlite's default shared_buffers (128 MB) is
 * all touched once the database outgrows it, and was the largest part of the indexer's RSS after
 * the JS heap (BENCHMARKS.md, memory); 32 MB keeps the linear memory at its initial 128 MB. The
 * data files stay in the OS page cache, so a page not in the buffers costs a read call, not a
 * disk read.
 */
const SETTINGS = ['-c', 'shared_buffers=32MB'];

/**
 * How often the embedded database does what PostgreSQL's background processes would: vacuum and
 * analyze the tables that are due, then checkpoint (pglite-maintenance.ts). The WAL stays near
 * `min_wal_size`, 80 MB.
 */
export const CHECKPOINT_INTERVAL_MS = 5 * 60_000;

/**
 * PGlite is single-connection: every statement is serialised by PGlite itself, and a
 * transaction holds the connection exclusively, so readers wait for a writer's commit.
 */
export async function openPglite(dataDir: string | undefined, template?: Blob, checkpointMs = CHECKPOINT_INTERVAL_MS): Promise<Database> {
  let dir: string | undefined;
  let unlock = () => undefined as void;
  if (dataDir) {
    dir = join(dataDir, 'pgdata');
    mkdirSync(dir, { recursive: true });
    unlock = await lockDataDir(dataDir);
  }
  let pg: PGlite;
  try {
    if (dir && !existsSync(join(dir, 'PG_VERSION'))) await createDataDir(dir);
    const startParams = [...PGlite.defaultStartParams, ...SETTINGS];
    pg = await PGlite.create(dir ? { dataDir: dir, relaxedDurability: true, startParams } : template ? { loadDataDir: template, startParams } : { startParams });
  } catch (error) {
    unlock();
    throw error;
  }
  const wrap = (q: { query: PGlite['query'] }): Queryable => ({
    async query<T>(text: string, params?: unknown[]) {
      const result = await classifyFailures(() => q.query<T>(text, withArrayLiterals(params)));
      return result.rows;
    },
  });
  const root = wrap(pg);
  const maintenance = dir ? everyMaintenance(pg, checkpointMs) : null;
  return {
    engine: 'pglite',
    query: root.query,
    transaction: (fn, options) =>
      pg.transaction(async (tx) => {
        if (options?.afterBegin) await tx.exec(options.afterBegin);
        const result = await fn(wrap(tx));
        if (options?.beforeCommit) await tx.exec(options.beforeCommit);
        return result;
      }),
    exec: async (sql) => {
      await pg.exec(sql);
    },
    close: async () => {
      if (maintenance) clearInterval(maintenance);
      await pg.close();
      unlock();
    },
    dump: (compression = 'none') => pg.dumpDataDir(compression),
  };
}
