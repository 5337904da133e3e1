import type { PGlite } from '@electric-sql/pglite';

/**
 * What PostgreSQL's background processes do and PGlite, one backend without them, never did:
 * vacuum, analyze, checkpoint. A soak review found the cost of the missing vacuum: every update
 * and delete left its dead row for good, so the tables the indexer churns grew while their live
 * rows stayed flat (`balance_changes` 1.9 MB for 1,303 live rows, 0.17 MB once vacuumed, after 30
 * minutes of the demo; a week of a busy chain makes gigabytes), and without vacuum no page is
 * marked all-visible, so every index-only scan (each holders page) reads the heap as well.
 *
 * Each round asks `pg_stat_user_tables` which tables are due by autovacuum's own default rules
 * (dead rows over 50 + 20 %, rows inserted since the last vacuum over 1,000 + 20 %, rows changed
 * since the last analyze over 50 + 10 % of the live ones), vacuums and analyzes those, then
 * checkpoints so the WAL can be recycled (it grew for as long as the process lived before: 81 MB
 * after 43 minutes of two busy devnets, a crash replaying all of it). The statements run on the
 * one connection, so requests wait for them: a due vacuum of a table is a pass over the pages
 * changed since its last one, and a checkpoint a few hundred ms. A failed round is tried again at
 * the next tick.
 */
const DUE_TABLES = /* sql */ `
  SELECT format('%I.%I', schemaname, relname) AS name,
         n_dead_tup > 50 + 0.2 * n_live_tup OR n_ins_since_vacuum > 1000 + 0.2 * n_live_tup AS vacuum,
         n_mod_since_analyze > 50 + 0.1 * n_live_tup AS analyze
    FROM pg_stat_user_tables
   WHERE n_dead_tup > 50 + 0.2 * n_live_tup
      OR n_ins_since_vacuum > 1000 + 0.2 * n_live_tup
      OR n_mod_since_analyze > 50 + 0.1 * n_live_tup
   ORDER BY n_dead_tup DESC`;

/** One round: the due tables vacuumed and analyzed, then a checkpoint. Returns the tables it maintained. */
export async function maintain(pg: Pick<PGlite, 'query' | 'exec'>): Promise<string[]> {
  const due = (await pg.query<{ name: string; vacuum: boolean; analyze: boolean }>(DUE_TABLES)).rows;
  for (const table of due) {
    const what = table.vacuum && table.analyze ? 'VACUUM (ANALYZE)' : table.vacuum ? 'VACUUM' : 'ANALYZE';
    await pg.exec(`${what} ${table.name}`);
  }
  await pg.exec('CHECKPOINT');
  return due.map((t) => t.name);
}

/** A round every `intervalMs`, never two at once; the timer does not keep the process alive. */
export function everyMaintenance(pg: Pick<PGlite, 'query' | 'exec'>, intervalMs: number): NodeJS.Timeout {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void maintain(pg)
      .catch(() => undefined)
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return timer;
}
