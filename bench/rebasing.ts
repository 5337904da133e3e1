/**
 * Rebasing-token reconciliation benchmark: a real rebasing contract (contracts/RebasingToken.sol)
 * with 100,000 holders on anvil, indexed into PostgreSQL by
 *   (a) the baseline — the code of `--baseline` (default: the last commit that read every holder
 *       of every rebasing token with balanceOf after every batch), run from a git worktree, and
 *   (b) this tree: the touched holders plus one slice of the rolling sweep per batch.
 * Each backfills to the head, then follows it for `--batches` new blocks, one batch each: blocks of
 * 50 transfers among random holders, every third one a rebase (no events). Per batch it records
 * the balanceOf calls the indexer made (counted by a relay in front of the node) and the batch's
 * wall time (fetch, reads, write).
 *
 *   npm run bench:rebasing                           100,000 holders, results in bench/results/rebasing.json
 *   npm run bench:rebasing -- --tiny                 2,000 holders (not written to the committed file)
 */
import { execFileSync } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Address } from 'viem';
import { connectDevnet, startAnvil } from '../src/devnet/index.js';
import { createRng } from '../src/devnet/random.js';
import { deployRebasingToken, moveTokens, rebase } from '../src/devnet/rebasing.js';
import { chainConfig } from '../src/config/config.js';
import { POSTGRES_ADMIN_URL } from '../test/support/databases.js';
import { startRpcCounter } from '../test/support/rpc-counter.js';
import { readFlags } from './lib/args.js';
import { logger, machineInfo, RESULTS_DIR } from './lib/results.js';
import { median } from './lib/stats.js';

const { sizes, tiny, options } = readFlags(
  { holders: 100_000, batches: 9, sweepBatches: 100 },
  { holders: 2_000, batches: 3, sweepBatches: 10 },
  { baseline: { type: 'string', default: 'a458a40' }, out: { type: 'string' } },
);
const log = logger('bench:rebasing');
const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..');
const CHAIN_ID = 31337;
const MOVES_PER_BLOCK = 50;

interface BatchFigure {
  block: number;
  rebase: boolean;
  balance_of_calls: number;
  ms: number;
}

/** What a variant's modules provide (this tree's, or the baseline's from its worktree). */
interface Variant {
  name: string;
  root: string;
}

async function main() {
  const machine = await machineInfo({ postgresUrl: POSTGRES_ADMIN_URL });
  const baselineRef = String(options['baseline']);
  const baselineCommit = execFileSync('git', ['rev-parse', '--short', baselineRef], { cwd: repo }).toString().trim();
  const worktree = mkdtempSync(join(tmpdir(), 'explorer-baseline-'));
  execFileSync('git', ['worktree', 'add', '--detach', worktree, baselineCommit], { cwd: repo, stdio: 'ignore' });
  symlinkSync(join(repo, 'node_modules'), join(worktree, 'node_modules'));
  const anvil = await startAnvil({ chainId: CHAIN_ID });
  try {
    const node = await connectDevnet(anvil.url, { chainId: CHAIN_ID });
    const started = Date.now();
    const token = await deployRebasingToken(node, { holders: sizes.holders, perTx: 1_000, seed: 'bench' });
    log(`${sizes.holders} holders minted in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const variants: Variant[] = [
      { name: `baseline (${baselineCommit}): every holder after every batch`, root: worktree },
      { name: `this tree: touched + 1/${sizes.sweepBatches} of the holders per batch`, root: repo },
    ];
    const results = [];
    for (const variant of variants) results.push({ variant: variant.name, ...(await runVariant(variant, node, anvil.url, token)) });
    const summary = results.map((r) => ({
      variant: r.variant,
      backfill_ms: r.backfill_ms,
      median_balance_of_calls_per_batch: median(r.batches.map((b) => b.balance_of_calls)),
      median_ms_per_batch: median(r.batches.map((b) => b.ms)),
      max_ms_per_batch: Math.max(...r.batches.map((b) => b.ms)),
    }));
    for (const s of summary) log(`${s.variant}: ${s.median_balance_of_calls_per_batch} balanceOf calls/batch, ${s.median_ms_per_batch} ms/batch (max ${s.max_ms_per_batch})`);
    const out = typeof options['out'] === 'string' ? options['out'] : join(RESULTS_DIR, tiny ? 'rebasing-tiny.json' : 'rebasing.json');
    const command = `npm run bench:rebasing${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
    await writeFile(
      out,
      `${JSON.stringify({ command, date: new Date().toISOString(), machine, holders: sizes.holders, sweep_batches: sizes.sweepBatches, moves_per_block: MOVES_PER_BLOCK, summary, runs: results }, null, 2)}\n`,
    );
    log(`wrote ${out}`);
  } finally {
    await anvil.stop();
    execFileSync('git', ['worktree', 'remove', '--force', worktree], { cwd: repo, stdio: 'ignore' });
    rmSync(worktree, { recursive: true, force: true });
  }
}

async function runVariant(variant: Variant, node: Awaited<ReturnType<typeof connectDevnet>>, nodeUrl: string, token: { address: Address; holders: Address[] }) {
  const load = <T>(path: string) => import(join(variant.root, path)) as Promise<T>;
  const { createRpcClient } = await load<typeof import('../src/rpc/client.js')>('src/rpc/client.ts');
  const { openDatabase } = await load<typeof import('../src/db/client.js')>('src/db/client.ts');
  const { migrate } = await load<typeof import('../src/db/migrate.js')>('src/db/migrate.ts');
  const { ensureChain } = await load<typeof import('../src/db/queries/chains.js')>('src/db/queries/chains.ts');
  const { ChainIndexer } = await load<typeof import('../src/indexer/chain-indexer.js')>('src/indexer/chain-indexer.ts');

  const name = `explorer_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: url.toString() });
  const counter = await startRpcCounter(nodeUrl);
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const rpc = createRpcClient({ chainId: CHAIN_ID, urls: [counter.url] });
  const figures: BatchFigure[] = [];
  let calls = 0;
  let backfillMs = 0;
  let doneTo = -1n;
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  try {
    await migrate(db);
    await ensureChain(db, CHAIN_ID, 2);
    const head = await node.public.getBlockNumber();
    const indexer = new ChainIndexer({
      db,
      rpc,
      logger: quiet,
      chain: chainConfig(CHAIN_ID, [counter.url], {
        pollIntervalMs: 20,
        rebasingTokens: [token.address.toLowerCase() as `0x${string}`],
        rebasingSweepBatches: sizes.sweepBatches,
      }),
      // the backfill in one batch (at the head, so every balanceOf reads current state); then one
      // block per batch as the head moves
      minBatchBlocks: 1_000,
      maxBatchBlocks: 1_000,
      onBatch: ({ batch, ms }) => {
        doneTo = batch.to;
        const now = counter.count('balanceOf');
        if (batch.to <= head) backfillMs += ms;
        else figures.push({ block: Number(batch.to), rebase: false, balance_of_calls: now - calls, ms });
        calls = now;
      },
    });
    const running = indexer.run(controller.signal);
    /** until the batch reaching `block` is done: written and, for the baseline, reconciled after */
    const indexedTo = async (block: bigint) => {
      while (doneTo < block) await new Promise((resolve) => setTimeout(resolve, 10));
    };
    await indexedTo(head);
    log(`${variant.name}: backfill of ${head} blocks in ${(backfillMs / 1000).toFixed(1)} s`);
    const rng = createRng('moves'); // the same transfers for every variant
    const pick = () => rng.pick(token.holders);
    for (let i = 1; i <= sizes.batches; i++) {
      const isRebase = i % 3 === 0;
      if (isRebase) await rebase(node, token.address, 1_001n, 1_000n);
      else await moveTokens(node, token.address, Array.from({ length: MOVES_PER_BLOCK }, () => ({ from: pick(), to: pick(), amount: 10n ** 15n })));
      const block = await node.public.getBlockNumber();
      await indexedTo(block);
      const figure = figures.find((f) => f.block === Number(block));
      if (figure) figure.rebase = isRebase;
      log(`${variant.name}: block ${block}${isRebase ? ' (rebase)' : ''}: ${figure?.balance_of_calls} balanceOf calls, ${figure?.ms} ms`);
    }
    controller.abort();
    await running;
    return { backfill_ms: backfillMs, batches: figures };
  } finally {
    controller.abort();
    rpc.close?.();
    await counter.close();
    await db.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

await main();
