import { createHash } from 'node:crypto';
import { createReadStream, existsSync, lstatSync, openAsBlob, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { migrations } from './migrations/index.js';

/**
 * A new embedded data directory, made from a template instead of by initdb. PGlite's initdb is a
 * WASM instance of its own: ~5 s and ~890 MB of RSS on the bench machine, the largest memory peak
 * of the default engine's life, at the one moment a first-time user is watching (BENCHMARKS.md).
 * Loading a dump of a freshly initdb'd directory takes ~1 s at the RSS of an ordinary open.
 *
 * The template is made at build time (scripts/pglite-template.mjs) by the installed PGlite, with
 * this code's migrations applied (~0.5 s of a first start on the bench machine), and named after
 * PGlite's version and those migrations, so an upgraded PGlite or a changed migration list never
 * loads another's dump: without a template of its own a new directory runs initdb and the
 * migrations as before. It is only ever a shortcut: whatever keeps it from being used, initdb is.
 */

/** The installed PGlite's version (its package.json, found from a file the package exports). */
function pgliteVersion(): string {
  let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite/pglite.wasm'));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
      if (name === '@electric-sql/pglite' && version) return version;
    }
    const up = dirname(dir);
    if (up === dir) throw new Error('@electric-sql/pglite: package.json not found');
    dir = up;
  }
}

/**
 * The migrations a template holds, as a short digest of their ids and statements (not of an
 * `after` step's code: its source text differs between the build and a test's transform).
 */
export function migrationsDigest(): string {
  const hash = createHash('sha256');
  for (const m of migrations) hash.update(`${m.id}\u0000${m.sql}\u0000`);
  return hash.digest('hex').slice(0, 12);
}

const TEMPLATE_PREFIX = 'pglite-template-';

/** Where the template of the installed PGlite and these migrations is (beside the built code: dist/). */
export function templatePath(): string {
  return fileURLToPath(new URL(`../${TEMPLATE_PREFIX}${pgliteVersion()}-${migrationsDigest()}.tar.gz`, import.meta.url));
}

/** Makes the template (migrated) if there is none for the installed PGlite and these migrations; returns its path. */
export async function buildTemplate(path = templatePath()): Promise<{ path: string; built: boolean }> {
  const prefix = `${basename(path)}.`;
  for (const name of readdirSync(dirname(path))) {
    // what a build killed while writing left (its name says which process wrote it), and the
    // templates of other versions or migrations, which this code never loads
    const stale = (name.startsWith(prefix) && name.endsWith('.tmp')) || (name.startsWith(TEMPLATE_PREFIX) && name !== basename(path));
    if (stale) rmSync(join(dirname(path), name), { force: true });
  }
  if (existsSync(path)) return { path, built: false };
  const dump = await migratedDump('gzip');
  // whole or not at all: a build cut short leaves no template that would fail every first start
  const partial = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, path);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
  return { path, built: true };
}

/** A new in-memory database with every migration applied, dumped: the build's template, and the tests' cached one. */
export async function migratedDump(compression: 'none' | 'gzip'): Promise<Blob> {
  // (imported here: ./pglite.js makes new directories with this module)
  const [{ openPglite }, { migrate }] = await Promise.all([import('./pglite.js'), import('./migrate.js')]);
  const pg = await openPglite(undefined);
  try {
    await migrate(pg);
    return await pg.dump!(compression);
  } finally {
    await pg.close();
  }
}

/**
 * Whether `dir` can be replaced by a directory renamed into its place: a real, empty directory
 * on its parent's file system (not a mount point, a link to another disk, or anything holding
 * files, which initdb fills in place as it always did).
 */
function replaceable(dir: string): boolean {
  const own = lstatSync(dir, { throwIfNoEntry: false });
  if (!own) return true;
  return own.isDirectory() && readdirSync(dir).length === 0 && own.dev === statSync(dirname(dir)).dev;
}

async function initdb(dir: string): Promise<'initdb'> {
  // Closed, all of initdb's memory is freed; kept, the indexer would carry it for the life of the process.
  await (await PGlite.create({ dataDir: dir, relaxedDurability: true })).close();
  return 'initdb';
}

/**
 * Makes `dir` a new data directory: from the template when there is one, else by initdb. The
 * template is unpacked beside `dir` and renamed into place, so a process killed meanwhile leaves
 * no half-made directory that a later start would take for a database. A template that fails
 * to load (damaged on its way here) is named in a warning, and initdb makes the directory.
 */
export async function createDataDir(dir: string, template = templatePath()): Promise<'template' | 'initdb'> {
  const staging = `${dir}.new`;
  rmSync(staging, { recursive: true, force: true });
  if (!existsSync(template) || !replaceable(dir)) return initdb(dir);
  try {
    // gzip's checksum read through first: a damaged file is found before anything is written,
    // and a zlib stream failing inside PGlite is also an error event nobody handles there. (Not
    // unpacked here for PGlite: the whole tar in memory raised the first start's peak by ~120 MB.)
    await pipeline(createReadStream(template), createGunzip(), new Writable({ write: (_chunk, _encoding, done) => done() }));
    await (await PGlite.create({ dataDir: staging, loadDataDir: await openAsBlob(template), relaxedDurability: true })).close();
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
    return 'template';
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    process.emitWarning(`the PGlite template ${template} could not be used (${error instanceof Error ? error.message : String(error)}): running initdb instead`);
    return initdb(dir);
  }
}
