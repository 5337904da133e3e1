import { execFileSync } from 'node:child_process';
import { readdirSync, statSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { EXPLORER_MAIN, ROOT } from './explorer-command.js';

/** The newest modification time of the sources dist/ is built from (src/, tests excluded). */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (!entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Before any test file: the built `explorer` the tests start (explorer-command.ts) is the
 * sources' own. `npm install` builds it (prepare); an edit since then is built here, so a test
 * never runs yesterday's command; and the PGlite template of these migrations is made if it is missing.
 */
export default function setup(): void {
  // the build is incremental (tsconfig.build.json): it rewrites only what changed, and its build info
  const mtime = (path: string) => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const built = Math.max(mtime(EXPLORER_MAIN), mtime(join(ROOT, 'dist', '.tsbuildinfo')));
  if (newestSource(join(ROOT, 'src')) > built) {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
    // a source touched but not changed emits nothing: the build info marks this build as done anyway
    const now = new Date();
    utimesSync(join(ROOT, 'dist', '.tsbuildinfo'), now, now);
  }
  // the PGlite template of these migrations (named after them: an edited list needs its own); a
  // no-op when it is there
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'pglite-template.mjs')], { cwd: ROOT, stdio: 'inherit' });
}
