/**
 * A new embedded data directory is made from the template the build leaves beside the code
 * (src/db/pglite-template.ts), not by initdb: the same database, without initdb's seconds and
 * memory; and a template load cut short leaves nothing a later start would take for a database.
 */
import { spawn, spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTemplate, createDataDir } from '../../src/db/pglite-template.js';
import { openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';

const root = mkdtempSync(join(tmpdir(), 'pglite-template-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** What a data directory holds, as the database sees it. */
async function describeDataDir(dir: string) {
  const pg = await PGlite.create({ dataDir: dir });
  try {
    const { rows } = await pg.query<{ v: string; dbs: string[]; encoding: string; collate: string }>(
      `SELECT current_setting('server_version') AS v, (SELECT array_agg(datname ORDER BY datname) FROM pg_database) AS dbs,
              pg_encoding_to_char(encoding) AS encoding, datcollate AS collate FROM pg_database WHERE datname = current_database()`,
    );
    return rows[0];
  } finally {
    await pg.close();
  }
}

/** The data directory opens, migrated (by `migrate` first, if asked), and holds no chain. */
async function expectMigratedAndEmpty(dataDir: string, migrateFirst: boolean) {
  const db = await openDatabase({ dataDir });
  try {
    if (migrateFirst) await migrate(db);
    const [row] = await db.query<{ n: string }>('SELECT count(*)::text AS n FROM chains');
    expect(row?.n).toBe('0');
  } finally {
    await db.close();
  }
}

describe('new PGlite data directories', () => {
  const template = join(root, 'template.tar.gz');

  it('are made from the template as initdb would make them', async () => {
    expect(await buildTemplate(template)).toEqual({ path: template, built: true });
    expect(await buildTemplate(template)).toEqual({ path: template, built: false });
    const fromTemplate = join(root, 'a', 'pgdata');
    const byInitdb = join(root, 'b', 'pgdata');
    mkdirSync(fromTemplate, { recursive: true });
    mkdirSync(byInitdb, { recursive: true });
    expect(await createDataDir(fromTemplate, template)).toBe('template');
    expect(await createDataDir(byInitdb, join(root, 'no-such-template.tar.gz'))).toBe('initdb');
    const made = await describeDataDir(fromTemplate);
    expect(made).toEqual(await describeDataDir(byInitdb));
    expect(made?.dbs).toContain('postgres');
    expect(existsSync(`${fromTemplate}.new`)).toBe(false);
    // the template holds this code's migrations: a first start applies none of them
    const db = await openDatabase({ dataDir: dirname(fromTemplate) });
    try {
      expect(await migrate(db)).toEqual([]);
      const applied = await db.query<{ id: string }>('SELECT id FROM schema_migrations ORDER BY id');
      expect(applied.map((r) => r.id)).toEqual(migrations.map((m) => m.id).sort());
    } finally {
      await db.close();
    }
  }, 120_000);

  it('replace a load that was cut short, and then migrate and open as any other', async () => {
    const dataDir = join(root, 'c');
    const dir = join(dataDir, 'pgdata');
    // what a kill during the template's load leaves: a partial staging directory and an empty one
    mkdirSync(join(`${dir}.new`, 'base'), { recursive: true });
    writeFileSync(join(`${dir}.new`, 'PG_VERSION'), '17\n');
    mkdirSync(dir, { recursive: true });
    expect(await createDataDir(dir, template)).toBe('template');
    expect(existsSync(`${dir}.new`)).toBe(false);
    expect(readdirSync(dir)).toContain('PG_VERSION');
    await expectMigratedAndEmpty(dataDir, true);
  }, 120_000);

  it('are made by initdb, as before, where the template cannot be used: damaged, or a directory already holding files', async () => {
    const damaged = join(root, 'damaged.tar.gz');
    writeFileSync(damaged, readFileSync(template).subarray(0, 100_000));
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const dir = join(root, 'e', 'pgdata');
      mkdirSync(dir, { recursive: true });
      expect(await createDataDir(dir, damaged)).toBe('initdb');
      expect(existsSync(`${dir}.new`)).toBe(false);
      await new Promise((done) => setImmediate(done));
      expect(warnings.join('\n')).toContain(damaged);
      await expectMigratedAndEmpty(join(root, 'e'), true);
    } finally {
      process.off('warning', onWarning);
    }
    // an operator's files in the directory (it has no PG_VERSION yet) are kept, as initdb keeps them
    const dir = join(root, 'f', 'pgdata');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'operator-notes.txt'), 'mine');
    expect(await createDataDir(dir, template)).toBe('initdb');
    expect(readFileSync(join(dir, 'operator-notes.txt'), 'utf8')).toBe('mine');
  }, 120_000);

  it('leave no partial template behind a build killed while writing it', async () => {
    const path = join(root, 'g', 'template.tar.gz');
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(`${path}.12345.tmp`, 'partial');
    expect(await buildTemplate(path)).toEqual({ path, built: true });
    expect(readdirSync(dirname(path))).toEqual(['template.tar.gz']);
  }, 120_000);

  it('survive a kill at any moment of the first start, the built command unpacking the template', async () => {
    const dataDir = join(root, 'd');
    const cli = join(process.cwd(), 'dist', 'cli', 'main.js');
    // the first start unpacks ~1.5–3 s after the process starts (measured), then migrates: kills spread over both
    for (const killAfterMs of [300, 1_000, 1_700, 2_100, 2_500, 3_200]) {
      const child = spawn(process.execPath, [cli, 'migrate', '--data-dir', dataDir], { stdio: 'ignore' });
      // listened for at once: on a fast machine the start may be over before the kill
      const exited = new Promise((done) => child.once('exit', done));
      await sleep(killAfterMs);
      child.kill('SIGKILL');
      await exited;
    }
    const last = spawnSync(process.execPath, [cli, 'migrate', '--data-dir', dataDir], { encoding: 'utf8', timeout: 60_000 });
    expect(last.status, last.stderr).toBe(0);
    await expectMigratedAndEmpty(dataDir, false);
  }, 120_000);

  it('have a template in the build, for the installed PGlite and these migrations, and no other', async () => {
    // the build step (scripts/pglite-template.mjs) writes it beside dist/; without it every
    // first start would run initdb again
    const built = (await import('../../dist/db/pglite-template.js')) as typeof import('../../src/db/pglite-template.js');
    const path = built.templatePath();
    expect(existsSync(path)).toBe(true);
    expect(readdirSync(dirname(path)).filter((name) => name.startsWith('pglite-template-'))).toEqual([basename(path)]);
  });

  it('name the migrations they hold: another list is another template, and the stale one goes', async () => {
    const dir = join(root, 'h');
    mkdirSync(dir, { recursive: true });
    // a template of another migration list, as an earlier build left it beside the code
    writeFileSync(join(dir, 'pglite-template-0.0.0-000000000000.tar.gz'), 'stale');
    const path = join(dir, 'pglite-template-current.tar.gz');
    expect(await buildTemplate(path)).toEqual({ path, built: true });
    expect(readdirSync(dir)).toEqual(['pglite-template-current.tar.gz']);
  }, 120_000);
});
