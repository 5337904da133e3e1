import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** the repository (contracts.ts says the same; not imported from there, which loads solc) */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The `explorer` command as the tests start it: the build in dist/, which is what `npm start`
 * and an installed package run. test/support/global-setup.ts rebuilds it before a run when a
 * source is newer. Started through tsx instead, each of the suite's ~150 starts cost about
 * 1.5 s more (2.3 s of CPU: its loader hooks resolve every import), most of the CLI tests' time.
 */
export const EXPLORER_MAIN = join(ROOT, 'dist', 'cli', 'main.js');

/** Node's arguments for `explorer <args>` (spawn them with process.execPath). */
export const explorerArgv = (args: readonly string[]): string[] => [EXPLORER_MAIN, ...args];
