import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

export const RESULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');

/** Tiny runs (the test suite's) never touch the committed figures. */
export function resultsPath(tiny: boolean, out: string | undefined): string {
  return out ?? join(RESULTS_DIR, tiny ? 'tiny.json' : 'latest.json');
}

export async function machineInfo(extra: { postgresUrl?: string } = {}) {
  let postgres: string | null = null;
  if (extra.postgresUrl) {
    const client = new pg.Client({ connectionString: extra.postgresUrl });
    await client.connect();
    try {
      postgres = ((await client.query<{ v: string }>('SELECT version() AS v')).rows[0]?.v ?? '').split(' on ')[0] ?? null;
    } finally {
      await client.end();
    }
  }
  const { version: pglite } = JSON.parse(
    await readFile(join(RESULTS_DIR, '..', '..', 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8'),
  ) as { version: string };
  return {
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memory_gb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    postgres,
    pglite,
    load_average_at_start: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

/**
 * Measuring on a machine other jobs are loading gives figures for that load, not for the code.
 * Waits for the 1-minute load average to drop below `threshold`, up to `maxMs`, and says what
 * it got so the results can carry it.
 */
export async function waitForQuiet(
  log: (msg: string) => void,
  { threshold = 1.5, maxMs = 30 * 60_000, pollMs = 10_000 } = {},
): Promise<{ quiet: boolean; waited_s: number; load_average: number[] }> {
  const started = Date.now();
  let lastLog = 0;
  for (;;) {
    const load = loadavg();
    if (load[0]! < threshold) return { quiet: true, waited_s: Math.round((Date.now() - started) / 1000), load_average: rounded(load) };
    if (Date.now() - started >= maxMs) {
      log(`load average still ${load[0]!.toFixed(2)} after ${Math.round(maxMs / 60_000)} min: measuring anyway`);
      return { quiet: false, waited_s: Math.round((Date.now() - started) / 1000), load_average: rounded(load) };
    }
    if (Date.now() - lastLog > 60_000) {
      log(`waiting for a quiet machine: 1-min load average ${load[0]!.toFixed(2)} ≥ ${threshold}`);
      lastLog = Date.now();
    }
    await sleep(pollMs);
  }
}

const rounded = (load: number[]) => load.map((l) => Math.round(l * 100) / 100);

/**
 * A quiet-machine check before each measured round, sharing one budget of waiting: other
 * jobs come and go, and a check only at the start would let them land in the middle of a run.
 * Disabled (tiny runs, --no-wait), it records nothing and never waits.
 */
export function quietGates(enabled: boolean, log: (msg: string) => void, budgetMs = 30 * 60_000) {
  const gates: Array<{ before: string; quiet: boolean; waited_s: number; load_average: number[] }> = [];
  let spentMs = 0;
  return {
    async before(label: string): Promise<void> {
      if (!enabled) return;
      const gate = await waitForQuiet(log, { maxMs: Math.max(0, budgetMs - spentMs) });
      spentMs += gate.waited_s * 1000;
      gates.push({ before: label, ...gate });
    },
    summary() {
      if (!enabled) return null;
      return { all_quiet: gates.every((g) => g.quiet), threshold_1min_load: 1.5, gates };
    },
  };
}

/** Replaces one section of the results file, keeping what the other script wrote. */
export async function mergeResults(path: string, section: 'api' | 'index', value: Record<string, unknown>, common: Record<string, unknown>) {
  let current: Record<string, unknown> = {};
  try {
    current = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const next = { ...current, ...common, [section]: value };
  await mkdir(dirname(path), { recursive: true });
  // Written aside and renamed, so an interrupted run never leaves half a file.
  await writeFile(`${path}.tmp`, `${JSON.stringify(next, null, 2)}\n`);
  await rename(`${path}.tmp`, path);
}

export function logger(prefix: string) {
  const started = Date.now();
  return (msg: string) => console.log(`[${prefix} ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${msg}`);
}
