/**
 * The benchmarks at tiny size, so the scripts cannot rot between the hand-run full measurements.
 * Only the shape of the results is checked: timings on a shared test machine mean nothing.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../support/databases.js';

const run = promisify(execFile);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bench-tiny-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function bench(script: string, ...args: string[]): Promise<Record<string, any>> {
  const out = join(dir, `${script}.json`);
  await run(process.execPath, ['--import', 'tsx', `bench/${script}.ts`, '--tiny', '--out', out, ...args], { timeout: 240_000, maxBuffer: 16 * 2 ** 20 });
  return JSON.parse(await readFile(out, 'utf8')) as Record<string, any>;
}

const positive = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0;

describe.runIf(await postgresAvailable())('benchmarks at tiny size', () => {
  it('bench:api loads PostgreSQL, times both operations, labelled pages against plain ones, and loads them over HTTP', async () => {
    const { api, machine, command } = await bench('api', '--labels');
    for (const key of ['holders_p50_ms', 'holders_p99_ms', 'deep_over_top', 'blocks_p50_ms', 'blocks_p99_ms', 'throughput_ratio', 'throughput_ratio_uncached']) {
      expect(positive(api[key]), key).toBe(true);
    }
    expect(api.size).toMatchObject({ holders: 20_000, blocks: 20_000 });
    // deep_over_top apart from the working set: ratios at 1, 10 and 100 cursors
    for (const n of [1, 10, 100]) expect(positive(api.deep_over_top_by_working_set[`cursors_${n}`]), `cursors_${n}`).toBe(true);
    // issue 11's comparison: both sides measured, on pages of each depth
    expect(positive(api.labels.labelled_over_plain)).toBe(true);
    expect(Object.keys(api.labels.runs[0].depths)).toEqual(['holders_top', expect.stringMatching(/^holders_depth_/), expect.stringMatching(/^holders_depth_/)]);
    // issue 13: pages at past blocks over the synthetic history, and what a kept change costs
    for (const key of ['first_page_cold_ms', 'first_page_warm_p50_ms', 'later_pages_p50_ms', 'small_first_page_cold_ms']) expect(positive(api.history[key]), key).toBe(true);
    expect(api.history.storage.intervals).toBeGreaterThan(0);
    expect(positive(api.history.storage.bytes_per_change_total)).toBe(true);
    // each page is one index range scan: no sort step at any depth (blocks-validated: index-only)
    for (const [name, e] of Object.entries(api.explain as Record<string, { plan: string[] }>)) {
      expect(e.plan.some((l) => /Index (Only )?Scan using token_balances_page|Index Only Scan using blocks_validated_page/.test(l)), name).toBe(true);
      expect(e.plan.some((l) => /\bSort\b/.test(l)), name).toBe(false);
    }
    expect(machine.cores).toBeGreaterThan(0);
    expect(command).toContain('--tiny');
  }, 300_000);

  it('bench:index indexes a generated chain into both engines and measures the fetch ceiling', async () => {
    const { index } = await bench('index');
    for (const key of ['events_per_s', 'fetch_ratio', 'peak_rss_mb']) expect(positive(index[key]), key).toBe(true);
    expect(positive(index.pglite.events_per_s)).toBe(true);
    expect(positive(index.bare_fetch.events_per_s)).toBe(true);
    expect(index.chain.transfers).toBe(5_000);
    expect(index.chain.miners).toBeGreaterThan(1);
  }, 300_000);

  it('bench:rebasing indexes a rebasing token with a baseline from a git worktree and this tree, counting balanceOf calls', async () => {
    // HEAD as the baseline: the mechanics (worktree, both variants, counting) without depending on history
    const { summary, holders } = await bench('rebasing', '--baseline', 'HEAD');
    expect(holders).toBe(2_000);
    expect(summary).toHaveLength(2);
    for (const variant of summary as Array<Record<string, number>>) {
      expect(positive(variant['median_balance_of_calls_per_batch'])).toBe(true);
      expect(variant['median_balance_of_calls_per_batch']).toBeLessThan(2_000);
      expect(positive(variant['median_ms_per_batch'])).toBe(true);
    }
  }, 300_000);
});
