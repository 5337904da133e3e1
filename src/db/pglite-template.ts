import { existsSync, openAsBlob, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
 * new database.
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
  if (existsSync(path)) return { path, built: false };
  const pg = await PGlite.create();
  try {
    const dump = await pg.dumpDataDir('gzip');
    // whole or not at all: a build cut short leaves no template that would fail every first start
    const partial = `${path}.${process.pid}.tmp`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, path);
  } finally {
    await pg.close();
  }
  return { path, built: true };
}

/**
 * Makes `dir` a new data directory: from the template when there is one, else by initdb. The
 * template is unpacked beside `dir` and renamed into place, so a process killed meanwhile leaves
 * no half-made directory that a later start would take for a database.
 */
export async function createDataDir(dir: string, template = templatePath()): Promise<'template' | 'initdb'> {
  if (!existsSync(template)) {
    // Closed, all of initdb's memory is freed; kept, the indexer would carry it for the life of the process.
    await (await PGlite.create({ dataDir: dir, relaxedDurability: true })).close();
    return 'initdb';
  }
  const staging = `${dir}.new`;
  rmSync(staging, { recursive: true, force: true });
  await (await PGlite.create({ dataDir: staging, loadDataDir: await openAsBlob(template), relaxedDurability: true })).close();
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  return 'template';
}
