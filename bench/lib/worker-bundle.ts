/**
 * A bench child process runs what users run: compiled JavaScript under plain `node`, not the
 * TypeScript sources through tsx. tsx's loader and the sources it transforms cost ~80 MB of RSS
 * in the process (measured: importing the indexer's modules takes RSS to 196 MB through tsx, to
 * 113 MB from dist/), which the indexer's memory target would otherwise be charged for. The
 * entry is bundled with its sources (bench/lib and src/) into one ES module; packages stay
 * imports of node_modules, as in dist/.
 */
import { build } from 'esbuild';
import { join } from 'node:path';

/** Bundles `entry` (a .ts file) into `<dir>/.build/<name>.mjs` and returns that path. */
export async function bundleWorker(dir: string, entry: string): Promise<string> {
  const outfile = join(dir, '.build', entry.replace(/\.ts$/, '.mjs'));
  await build({
    entryPoints: [join(dir, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  return outfile;
}
