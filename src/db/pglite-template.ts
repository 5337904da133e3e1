import { createReadStream, existsSync, lstatSync, openAsBlob, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';

/**
 * A new embedded data directory, made from a template instead of by initdb. PGlite's initdb is a
 * WASM instance of its own: ~5 s and ~890 MB of RSS on the bench machine, the largest memory peak
 * of the default engine's life, at the one moment a first-time user is watching (BENCHMARKS.md).
 * Loading a dump of a freshly initdb'd directory takes ~1 s at the RSS of an ordinary open.
 *
 * The template is made at build time (scripts/pglite-template.mjs) by the installed PGlite and
 * named after its version, so an upgraded PGlite never loads another version's dump: without a
 * template of its own it runs initdb as before. It holds no migration: those run on it as on any
 * new database. It is only ever a shortcut: whatever keeps it from being used, initdb is.
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

/** Where the template of the installed PGlite is (beside the built code: dist/). */
export function templatePath(): string {
  return fileURLToPath(new URL(`../pglite-template-${pgliteVersion()}.tar.gz`, import.meta.url));
}

/** Makes the template if the installed PGlite has none; returns its path. */
export async function buildTemplate(path = templatePath()): Promise<{ path: string; built: boolean }> {
  // what a build killed while writing left (its name says which process wrote it)
  const prefix = `${basename(path)}.`;
  for (const name of readdirSync(dirname(path))) if (name.startsWith(prefix) && name.endsWith('.tmp')) rmSync(join(dirname(path), name), { force: true });
  if (existsSync(path)) return { path, built: false };
  const pg = await PGlite.create();
  try {
    const dump = await pg.dumpDataDir('gzip');
    // whole or not at all: a build cut short leaves no template that would fail every first start
    const partial = `${path}.${process.pid}.tmp`;
    try {
      writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
      renameSync(partial, path);
    } catch (error) {
      rmSync(partial, { force: true });
      throw error;
    }
  } finally {
    await pg.close();
  }
  return { path, built: true };
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
