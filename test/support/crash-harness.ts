/**
 * Reliability tests' tools: a chain built on anvil from many miners and bulk ERC-20 traffic, the
 * real CLI indexer as a child process that can be killed at any moment, and a comparison of the
 * database with what the node itself says (balanceOf, totalSupply, its blocks).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeFunctionResult, encodeFunctionData, numberToHex, parseAbi, toEventSelector, type Address } from 'viem';
import { openDatabase, type Database, type Queryable } from '../../src/db/client.js';
import type { Hex } from '../../src/db/rows.js';
import { generateBulk, type BulkOptions, type BulkResult } from '../../src/devnet/bulk.js';
import type { DevnetClient } from '../../src/devnet/client.js';
import { deriveAddress } from '../../src/devnet/random.js';
import { deployScenario, generateActivity, type DemoScenario } from '../../src/devnet/scenario.js';
import { REPO_ROOT } from './contracts.js';
import { explorerArgv } from './explorer-command.js';
import { freshDatabase, type Engine } from './databases.js';
import { balancesAt, holderCounts, holdingKey, touchedHoldings, truthClient, type Holding } from './ground-truth.js';

const ERC20 = parseAbi(['function totalSupply() view returns (uint256)']);
const TRANSFER = toEventSelector('Transfer(address,address,uint256)');

// ---------------------------------------------------------------------------------------------
// The node, read directly (never through the code under test)

interface RpcAnswer {
  id: number;
  result?: unknown;
  error?: { message: string };
}

/** JSON-RPC batches straight to the node, in chunks anvil's request size limit accepts. */
export async function rpcBatch<T>(url: string, calls: ReadonlyArray<{ method: string; params: unknown[] }>, chunk = 400): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < calls.length; i += chunk) {
    const body = calls.slice(i, i + chunk).map((c, k) => ({ jsonrpc: '2.0', id: k, ...c }));
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const answers = ((await res.json()) as RpcAnswer[]).sort((a, b) => a.id - b.id);
    for (const a of answers) {
      if (a.error) throw new Error(`node: ${calls[i + a.id]!.method}: ${a.error.message}`);
      out.push(a.result as T);
    }
  }
  return out;
}

const ethCall = (to: Hex, data: Hex, block: bigint) => ({ method: 'eth_call', params: [{ to, data }, numberToHex(block)] });

export interface NodeBlockFacts {
  number: bigint;
  hash: Hex;
  miner: Hex;
  transactions: number;
  gasUsed: bigint;
  /** by the reference's definition: every trace but a transaction's top-level call */
  internalTransactions: number;
}

interface TraceEntry {
  type: string;
  traceAddress: number[];
}

/** The node's blocks 0..`to`, with what the block fields are derived from (its own traces). */
export async function nodeBlocks(url: string, to: bigint): Promise<NodeBlockFacts[]> {
  const numbers = Array.from({ length: Number(to) + 1 }, (_, n) => numberToHex(n));
  const blocks = await rpcBatch<{ number: Hex; hash: Hex; miner: Hex; gasUsed: Hex; transactions: Hex[] }>(
    url,
    numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [n, false] })),
  );
  const traces = await rpcBatch<TraceEntry[]>(url, numbers.map((n) => ({ method: 'trace_block', params: [n] })), 50);
  return blocks.map((b, i) => ({
    number: BigInt(b.number),
    hash: b.hash.toLowerCase() as Hex,
    miner: b.miner.toLowerCase() as Hex,
    transactions: b.transactions.length,
    gasUsed: BigInt(b.gasUsed),
    internalTransactions: traces[i]!.filter((t) => t.type !== 'reward' && (t.traceAddress.length > 0 || t.type !== 'call')).length,
  }));
}

// ---------------------------------------------------------------------------------------------
// The chain

/** A token and every address that may hold it (those its generator ever paid). */
export interface TokenHolders {
  token: Hex;
  holders: readonly Hex[];
}

export function holdingsOf(bulk: BulkResult): TokenHolders[] {
  const holders = bulk.holders.map((h: Address) => h.toLowerCase() as Hex);
  return bulk.tokens.map((t) => ({ token: t.address.toLowerCase() as Hex, holders }));
}

export interface CrashChain {
  bulk: BulkResult;
  holdings: TokenHolders[];
  /** the demo contracts (ERC-721, ERC-1155, WETH, an airdrop token, a clone and a proxy token), if asked for */
  scenario: DemoScenario | null;
  /** the scenario's tokens, checked with balanceOf over their own events (compareWithNode) */
  balanceOfTokens: Hex[];
  miners: Hex[];
  head: bigint;
}

export const scenarioTokens = (s: DemoScenario): Hex[] =>
  [s.erc20, s.erc721, s.erc1155, s.weth, s.clone, s.proxy].map((t) => t.toLowerCase() as Hex);

/**
 * `blocks` blocks of the demo scenario's traffic (ERC-721 transfers and mints, ERC-1155 single
 * and batch transfers, WETH deposits and withdrawals, ERC-20 transfers) from these miners.
 */
export async function scenarioActivity(node: DevnetClient, scenario: DemoScenario, blocks: number, miners: readonly Hex[], seed: string): Promise<void> {
  const activity = generateActivity(node, scenario, { maxBlocks: blocks, blocksPerSecond: 1_000, txsPerBlock: 6, miners: [...miners], seed });
  await activity.done;
}

/**
 * Blocks from several miners around a bulk of ERC-20 traffic: runs of empty blocks (batches grow
 * fast over them) and blocks dense with transfers (batches stay small), so kills land in both;
 * with `scenarioBlocks`, the demo contracts and that many blocks of their traffic before the
 * bulk, so non-fungible balances are there to check too.
 */
export async function buildCrashChain(
  node: DevnetClient,
  opts: { bulk: BulkOptions; miners: number; emptyBlocks: number; scenarioBlocks?: number; seed: string },
): Promise<CrashChain> {
  const miners = Array.from({ length: opts.miners }, (_, i) => deriveAddress(`miner:${opts.seed}`, i));
  const mineRuns = async (blocks: number) => {
    const run = Math.max(1, Math.ceil(blocks / miners.length / 3));
    for (let done = 0, i = 0; done < blocks; done += run, i++) {
      await node.setCoinbase(miners[i % miners.length]!);
      await node.mine(Math.min(run, blocks - done));
    }
  };
  const lowerMiners = miners.map((m) => m.toLowerCase() as Hex);
  await mineRuns(Math.floor(opts.emptyBlocks / 2));
  await node.setCoinbase(miners[0]!);
  let scenario: DemoScenario | null = null;
  if (opts.scenarioBlocks !== undefined) {
    scenario = await deployScenario(node, { holders: 40, nfts: 10, seed: opts.seed });
    await scenarioActivity(node, scenario, opts.scenarioBlocks, lowerMiners, opts.seed);
    await node.setCoinbase(miners[0]!);
  }
  const bulk = await generateBulk(node, opts.bulk);
  await mineRuns(Math.ceil(opts.emptyBlocks / 2));
  const head = await node.public.getBlockNumber();
  return { bulk, holdings: holdingsOf(bulk), scenario, balanceOfTokens: scenario ? scenarioTokens(scenario) : [], miners: lowerMiners, head };
}

// ---------------------------------------------------------------------------------------------
// The database against the node

export interface TruthReport {
  indexedBlock: bigint | null;
  balancesChecked: number;
  /** of those, ERC-721 owner counts (balanceOf(owner)) and ERC-1155 balances (balanceOf(owner, id)) */
  erc721Checked: number;
  erc1155Checked: number;
  balanceMismatches: string[];
  holderCountMismatches: string[];
  supplyMismatches: string[];
  missingBlocks: bigint[];
  duplicateBlocks: bigint[];
  wrongBlocks: string[];
  /** consensus blocks above the node's head, or blocks marked non-consensus */
  strayBlocks: number;
  negativeBalances: number;
  /**
   * The batch token parts committed above the indexed block (PostgreSQL's backfill: a kill
   * between the parts' commits and the batch's, src/indexer/write-parts.ts), or null. Their
   * tokens' rows are then a batch ahead of the indexed block until the next start writes that
   * batch for the others, so the balances are not compared for such a kill (the blocks are);
   * test/indexer/token-parts.test.ts holds that state against the node, and the next check holds
   * the next start's resume.
   */
  partsAheadAt: bigint | null;
}

export function mismatchCount(r: TruthReport): number {
  return (
    r.balanceMismatches.length + r.holderCountMismatches.length + r.supplyMismatches.length + r.missingBlocks.length +
    r.duplicateBlocks.length + r.wrongBlocks.length + r.strayBlocks + r.negativeBalances
  );
}

/** A readable summary for test output: counts, and the first few of each kind of difference. */
export function describeReport(r: TruthReport): string {
  const few = (xs: readonly unknown[]) => (xs.length === 0 ? '0' : `${xs.length} (${xs.slice(0, 3).map(String).join('; ')}${xs.length > 3 ? '; …' : ''})`);
  return [
    `indexed=${r.indexedBlock}${r.partsAheadAt === null ? '' : ` (token parts ahead at ${r.partsAheadAt}: balances not compared)`}`,
    `balances checked=${r.balancesChecked} (ERC-721 ${r.erc721Checked}, ERC-1155 ${r.erc1155Checked})`,
    `balance mismatches=${few(r.balanceMismatches)}`,
    `holder-count mismatches=${few(r.holderCountMismatches)}`,
    `supply mismatches=${few(r.supplyMismatches)}`,
    `missing blocks=${few(r.missingBlocks)}`,
    `duplicate blocks=${few(r.duplicateBlocks)}`,
    `wrong blocks=${few(r.wrongBlocks)}`,
    `stray blocks=${r.strayBlocks}`,
    `negative balances=${r.negativeBalances}`,
  ].join(', ');
}

const key = (token: string, holder: string) => `${token}|${holder}`;

interface BalanceRowText {
  token: Hex;
  holder: Hex;
  token_id: string | null;
  value: string;
}

/**
 * Every balance the database has, and every (token, possible holder) pair it might be missing,
 * against the node at the indexed block; holder counts per token; the consensus blocks against
 * the node's blocks 0..indexed block. The bulk's ERC-20s (`holdings`) by balanceOf at the node's
 * head and by their Transfer logs below it, with sums against totalSupply(); `balanceOfTokens`
 * (ERC-721, ERC-1155, WETH…) by balanceOf / balanceOf(holder, id) at the indexed block of every
 * holding their events touched (test/support/ground-truth.ts). A balance row of any other token
 * is a mismatch. Assumes the node's chain did not reorganise.
 */
export async function compareWithNode(
  db: Queryable,
  input: { url: string; chainId: number; holdings: readonly TokenHolders[]; balanceOfTokens?: readonly Hex[] },
): Promise<TruthReport> {
  const { url, chainId } = input;
  const tokens = input.holdings.map((h) => h.token);
  const byBalanceOf = new Set(input.balanceOfTokens ?? []);
  const progress = await db.query<{ indexed: string | null }>('SELECT indexed_block::text AS indexed FROM chains WHERE chain_id = $1', [chainId]);
  const indexedText = progress[0]?.indexed ?? null;
  const at = indexedText === null ? -1n : BigInt(indexedText);
  const allRows = await db.query<BalanceRowText>(
    `SELECT '0x' || encode(token, 'hex') AS token, '0x' || encode(holder, 'hex') AS holder, token_id::text AS token_id, value::text AS value
     FROM token_balances WHERE chain_id = $1`,
    [chainId],
  );
  const bulkTokens = new Set<string>(tokens);
  const rows = allRows.filter((r) => bulkTokens.has(r.token) && r.token_id === null);
  const otherRows = allRows.filter((r) => byBalanceOf.has(r.token));
  const strayRows = allRows.filter((r) => !(bulkTokens.has(r.token) && r.token_id === null) && !byBalanceOf.has(r.token));
  const ours = new Map(rows.map((r) => [key(r.token, r.holder), BigInt(r.value)]));
  const pairs = new Set(rows.map((r) => key(r.token, r.holder)));
  for (const { token, holders } of input.holdings) for (const h of holders) pairs.add(key(token, h));
  const list = [...pairs].map((k) => k.split('|') as [Hex, Hex]);

  const report: TruthReport = {
    indexedBlock: indexedText === null ? null : at,
    balancesChecked: list.length,
    erc721Checked: 0,
    erc1155Checked: 0,
    balanceMismatches: strayRows.map((r) => `${r.token}/${r.holder}/${r.token_id ?? '-'}: db ${r.value}, a token the chain does not have`),
    holderCountMismatches: [],
    supplyMismatches: [],
    missingBlocks: [],
    duplicateBlocks: [],
    wrongBlocks: [],
    strayBlocks: 0,
    negativeBalances: allRows.filter((r) => BigInt(r.value) < 0n).length,
    partsAheadAt: null,
  };
  const [ahead] = await db.query<{ block: string | null }>('SELECT max(block_number)::text AS block FROM token_parts WHERE chain_id = $1 AND block_number > $2', [
    chainId,
    at.toString(),
  ]);
  report.partsAheadAt = ahead?.block == null ? null : BigInt(ahead.block);
  if (at >= 0n && report.partsAheadAt === null) {
    const [latest] = await rpcBatch<Hex>(url, [{ method: 'eth_blockNumber', params: [] }]);
    const truth = at === BigInt(latest!) ? await balancesByCall(url, list, at) : await balancesByLogs(url, tokens, list, at);
    const holdersByToken = new Map<string, number>();
    list.forEach(([t, h], i) => {
      const expected = truth[i]!;
      const actual = ours.get(key(t, h)) ?? 0n;
      if (actual !== expected) report.balanceMismatches.push(`${t}/${h}: db ${actual}, node ${expected}`);
      if (expected > 0n) holdersByToken.set(t, (holdersByToken.get(t) ?? 0) + 1);
    });
    const supplies = (await rpcBatch<Hex>(url, tokens.map((t) => ethCall(t, encodeFunctionData({ abi: ERC20, functionName: 'totalSupply' }), at))))
      .map((d) => decodeUint('totalSupply', d));
    const counts = await db.query<{ token: string; type: string; holders: string }>(
      `SELECT '0x' || encode(address, 'hex') AS token, type, holder_count::text AS holders FROM tokens WHERE chain_id = $1`,
      [chainId],
    );
    const countOf = new Map(counts.map((c) => [c.token, Number(c.holders)]));
    const typeOf = new Map(counts.map((c) => [c.token, c.type]));
    tokens.forEach((t, i) => {
      const expected = holdersByToken.get(t) ?? 0;
      const counted = countOf.get(t) ?? 0;
      if (counted !== expected) report.holderCountMismatches.push(`${t}: db ${counted}, node ${expected}`);
      const sum = rows.filter((r) => r.token === t).reduce((s, r) => s + BigInt(r.value), 0n);
      if (sum !== supplies[i]) report.supplyMismatches.push(`${t}: db sum ${sum}, totalSupply ${supplies[i]}`);
    });
    if (byBalanceOf.size > 0) await compareByBalanceOf(url, [...byBalanceOf] as Hex[], otherRows, at, { countOf, typeOf }, report);
  }
  await compareBlocks(db, url, chainId, at, report);
  return report;
}

/**
 * `tokens`' balances at `at` by the ground truth's own reading of the node: every holding their
 * events touched up to `at` and every row the database has for them, each asked with balanceOf
 * (balanceOf(holder, id) for an ERC-1155 id, the count of NFTs owned for an ERC-721); holder
 * counts from those balances.
 */
async function compareByBalanceOf(
  url: string,
  tokens: readonly Hex[],
  rows: readonly BalanceRowText[],
  at: bigint,
  db: { countOf: ReadonlyMap<string, number>; typeOf: ReadonlyMap<string, string> },
  report: TruthReport,
): Promise<void> {
  const client = truthClient(url);
  const holdingOf = (r: BalanceRowText): Holding => ({ token: r.token, holder: r.holder, tokenId: r.token_id === null ? null : BigInt(r.token_id) });
  const holdings = new Map((await touchedHoldings(client, at, tokens)).map((h) => [holdingKey(h), h]));
  for (const r of rows) holdings.set(holdingKey(holdingOf(r)), holdingOf(r));
  const truth = await balancesAt(client, [...holdings.values()], at);
  const ours = new Map(rows.map((r) => [holdingKey(holdingOf(r)), BigInt(r.value)]));
  for (const [k, expected] of truth) {
    const actual = ours.get(k) ?? 0n;
    if (actual !== expected) report.balanceMismatches.push(`${k}: db ${actual}, node ${expected}`);
  }
  report.balancesChecked += truth.size;
  for (const h of holdings.values()) {
    if (h.tokenId !== null) report.erc1155Checked++;
    else if (db.typeOf.get(h.token) === 'ERC-721') report.erc721Checked++;
  }
  for (const [token, expected] of holderCounts(truth, tokens)) {
    const counted = db.countOf.get(token) ?? 0;
    if (counted !== expected) report.holderCountMismatches.push(`${token}: db ${counted}, node ${expected}`);
  }
}

// '0x': the token was not deployed yet at that block, so nobody held it
const decodeUint = (functionName: 'totalSupply', data: Hex) => (data === '0x' ? 0n : decodeFunctionResult({ abi: ERC20, functionName, data }));

/** balanceOf of each pair at `at`, by the ground truth's own reader. */
async function balancesByCall(url: string, list: ReadonlyArray<[Hex, Hex]>, at: bigint): Promise<bigint[]> {
  const holdings = list.map(([token, holder]): Holding => ({ token, holder, tokenId: null }));
  const values = await balancesAt(truthClient(url), holdings, at);
  return holdings.map((h) => values.get(holdingKey(h))!);
}

/**
 * Balances as the node's own Transfer logs up to `at` add up. anvil answers eth_call at an old
 * block by loading that block's state from disk, ~5 ms per call, so thousands of balanceOf calls
 * are checked this way below the head (for these plain ERC-20s only Transfer moves a balance;
 * totalSupply() is still asked at `at`, and the head is checked with balanceOf itself).
 */
async function balancesByLogs(url: string, tokens: readonly Hex[], list: ReadonlyArray<[Hex, Hex]>, at: bigint): Promise<bigint[]> {
  const filter = { fromBlock: '0x0', toBlock: numberToHex(at), address: tokens, topics: [TRANSFER] };
  const [logs] = await rpcBatch<Array<{ address: Hex; topics: Hex[]; data: Hex }>>(url, [{ method: 'eth_getLogs', params: [filter] }]);
  const sums = new Map<string, bigint>();
  const add = (token: string, topic: Hex, delta: bigint) => {
    const k = key(token.toLowerCase(), `0x${topic.slice(26)}`);
    sums.set(k, (sums.get(k) ?? 0n) + delta);
  };
  for (const log of logs!) {
    add(log.address, log.topics[1]!, -BigInt(log.data));
    add(log.address, log.topics[2]!, BigInt(log.data));
  }
  return list.map(([t, h]) => sums.get(key(t, h)) ?? 0n);
}

async function compareBlocks(db: Queryable, url: string, chainId: number, at: bigint, report: TruthReport): Promise<void> {
  const ours = await db.query<{ number: string; hash: string; miner: string; consensus: boolean; txs: number; gas: string; internal: number | null }>(
    `SELECT number::text AS number, '0x' || encode(hash, 'hex') AS hash, '0x' || encode(miner, 'hex') AS miner, consensus,
       transactions_count AS txs, gas_used::text AS gas, internal_transactions_count AS internal
     FROM blocks WHERE chain_id = $1`,
    [chainId],
  );
  const theirs = at >= 0n ? await nodeBlocks(url, at) : [];
  const seen = new Map<bigint, number>();
  for (const b of ours) {
    const n = BigInt(b.number);
    const node = theirs[Number(n)];
    if (!b.consensus || !node) {
      report.strayBlocks++;
      continue;
    }
    seen.set(n, (seen.get(n) ?? 0) + 1);
    const mine = `${b.hash}/${b.miner}/${b.txs} txs/${b.gas} gas/${b.internal} internal`;
    const truth = `${node.hash}/${node.miner}/${node.transactions} txs/${node.gasUsed} gas/${node.internalTransactions} internal`;
    if (mine !== truth) report.wrongBlocks.push(`#${n}: db ${mine}, node ${truth}`);
  }
  for (const b of theirs) {
    const times = seen.get(b.number) ?? 0;
    if (times === 0) report.missingBlocks.push(b.number);
    if (times > 1) report.duplicateBlocks.push(b.number);
  }
}

// ---------------------------------------------------------------------------------------------
// The real CLI indexer as a child process

export interface LogLine {
  level?: number;
  msg?: string;
  [field: string]: unknown;
}

export interface IndexerProcess {
  child: ChildProcess;
  /** structured log lines so far (pino JSON on stdout) */
  logs: LogLine[];
  /** anything that was not a JSON log line (stderr, crash traces) */
  output(): string;
  /** the first log line, past or future, matching `match`; rejects if the process exits first */
  waitForLog(match: (line: LogLine) => boolean, timeoutMs: number): Promise<LogLine>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface SpawnIndexerOptions {
  chainId: number;
  rpcUrl: string;
  dataDir: string;
  /** PostgreSQL instead of a PGlite data dir */
  databaseUrl?: string | null;
  env?: Record<string, string>;
}

/** `explorer index`, exactly as an operator would run it (the build, explorer-command.ts). */
export function spawnIndexer(opts: SpawnIndexerOptions): IndexerProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', EXPLORER_POLL_MS: '200', ...opts.env };
  delete env.DATABASE_URL;
  if (opts.databaseUrl) env.DATABASE_URL = opts.databaseUrl;
  const child = spawn(
    process.execPath,
    explorerArgv(['index', '--chain', `${opts.chainId}=${opts.rpcUrl}`, '--data-dir', opts.dataDir]),
    { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const logs: LogLine[] = [];
  const other: string[] = [];
  const waiters = new Set<{ match: (l: LogLine) => boolean; resolve: (l: LogLine) => void }>();
  let partial = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const text of lines) {
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        other.push(text);
        continue;
      }
      logs.push(line);
      for (const w of waiters) if (w.match(line)) w.resolve(line);
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => other.push(chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const output = () => other.join('').slice(-4_000);
  return {
    child,
    logs,
    output,
    exited,
    waitForLog(match, timeoutMs) {
      const past = logs.find(match);
      if (past) return Promise.resolve(past);
      return new Promise<LogLine>((resolve, reject) => {
        const waiter = { match, resolve: (l: LogLine) => done(() => resolve(l)) };
        const last = () => logs.slice(-5).map((l) => JSON.stringify(l)).join('\n');
        const timer = setTimeout(() => done(() => reject(new Error(`no matching log line after ${timeoutMs} ms; last log lines:\n${last()}\noutput:\n${output()}`))), timeoutMs);
        const done = (settle: () => void) => {
          clearTimeout(timer);
          waiters.delete(waiter);
          settle();
        };
        waiters.add(waiter);
        void exited.then(({ code, signal }) =>
          done(() => reject(new Error(`indexer exited (code ${code}, signal ${signal}) before the awaited log line; output:\n${output()}`))),
        );
      });
    },
  };
}

/** The log line the pipeline writes when it begins, with the first block it will fetch. */
export const isPipelineStart = (l: LogLine) => l.msg === 'resuming' || l.msg === 'starting';

/** SIGKILL (if it still runs); resolves with how it ended, which says whether it died on its own first. */
export async function killHard(p: IndexerProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  return p.exited;
}

// ---------------------------------------------------------------------------------------------
// Where the killed processes keep their data

export interface CrashTarget {
  engine: Engine;
  dataDir: string;
  databaseUrl: string | null;
  /**
   * Runs `fn` on the database as the last killed process left it, without changing what the next
   * process will open: a PGlite data dir is copied first, since opening it replays the WAL and
   * would turn a crashed directory into a cleanly shut down one. null if nothing was written yet.
   */
  inspect<T>(fn: (db: Database) => Promise<T>): Promise<T | null>;
  drop(): Promise<void>;
}

async function settled(db: Database, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await db.query<{ busy: string }>(
      `SELECT count(*)::text AS busy FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND state IS DISTINCT FROM 'idle'`,
    );
    if (row!.busy === '0' || Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function crashTarget(engine: Engine): Promise<CrashTarget> {
  const dataDir = mkdtempSync(join(tmpdir(), 'explorer-crash-'));
  if (engine === 'postgres') {
    const fresh = await freshDatabase('postgres');
    return {
      engine,
      dataDir,
      databaseUrl: fresh.url,
      // A SIGKILLed client's last COMMIT may still be running on the server: read only once
      // no other session of this database is mid-statement or mid-transaction, or a check
      // could see the progress row from before that commit and the blocks from after it.
      inspect: async (fn) => {
        await settled(fresh.db);
        return fn(fresh.db);
      },
      drop: async () => {
        await fresh.drop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  return {
    engine,
    dataDir,
    databaseUrl: null,
    async inspect(fn) {
      if (!existsSync(join(dataDir, 'pgdata', 'PG_VERSION'))) return null;
      const copy = mkdtempSync(join(tmpdir(), 'explorer-crash-copy-'));
      try {
        cpSync(join(dataDir, 'pgdata'), join(copy, 'pgdata'), { recursive: true });
        const db = await openDatabase({ dataDir: copy });
        try {
          // a kill after the data directory was made but before the migrations committed (one
          // transaction for all of them): nothing is written yet
          const [schema] = await db.query<{ migrated: boolean }>("SELECT to_regclass('chains') IS NOT NULL AS migrated");
          if (!schema?.migrated) return null;
          return await fn(db);
        } finally {
          await db.close();
        }
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    },
    drop: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}
