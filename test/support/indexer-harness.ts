/**
 * Runs the real chain indexer in-process against a node URL (anvil, or a fault proxy in front
 * of it) and waits for it to reach the node's head. Nothing is stubbed: the pipeline is wired
 * by the service's own `startIndexers` (src/indexer/run.ts), with quick retries, the enrichment
 * loop only when asked, and a logger that keeps what it said so a test can check which path a
 * rollback took or why a run stalled.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { chainConfig, type ChainConfig } from '../../src/config/config.js';
import type { RetryPolicy } from '../../src/rpc/client.js';
import type { Database, Queryable } from '../../src/db/client.js';
import type { Hex } from '../../src/db/rows.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { indexedBlock } from '../../src/db/queries/progress.js';
import { startIndexers, type IndexersOptions } from '../../src/indexer/run.js';
import type { Logger } from '../../src/indexer/logger.js';
import type { IndexerMetrics } from '../../src/indexer/metrics.js';

/** anvil's default chain id */
export const DEVNET_CHAIN_ID = 31337;

type Level = 'debug' | 'info' | 'warn' | 'error';

export interface LogEntry {
  level: Level;
  msg: string;
  obj: Record<string, unknown>;
}

/** A Logger that records every line; set INDEXER_LOG=1 to also print them. */
export class CapturingLogger implements Logger {
  readonly entries: LogEntry[] = [];
  private readonly echo = process.env.INDEXER_LOG === '1';

  private add(level: Level, obj: Record<string, unknown>, msg = '') {
    this.entries.push({ level, msg, obj });
    if (this.echo) console.log(`[${level}] ${msg} ${JSON.stringify(obj, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`);
  }
  debug(obj: Record<string, unknown>, msg?: string) {
    this.add('debug', obj, msg);
  }
  info(obj: Record<string, unknown>, msg?: string) {
    this.add('info', obj, msg);
  }
  warn(obj: Record<string, unknown>, msg?: string) {
    this.add('warn', obj, msg);
  }
  error(obj: Record<string, unknown>, msg?: string) {
    this.add('error', obj, msg);
  }

  errors(): LogEntry[] {
    return this.entries.filter((e) => e.level === 'error');
  }

  /** Entries whose message contains `text`, optionally at one level. */
  find(text: string, level?: Level): LogEntry[] {
    return this.entries.filter((e) => e.msg.includes(text) && (level === undefined || e.level === level));
  }

  /** Entries logged from now on, for checks about one step of a longer test. */
  mark(): { since(): LogEntry[] } {
    const at = this.entries.length;
    return { since: () => this.entries.slice(at) };
  }

  tail(n = 10): string {
    return this.entries
      .slice(-n)
      .map((e) => `[${e.level}] ${e.msg} ${JSON.stringify(e.obj)}`)
      .join('\n');
  }
}

/** A chain config for a local node: polls fast, indexes from genesis, default reorg window. */
export function testChainConfig(urls: string | readonly string[], overrides: Partial<ChainConfig> = {}): ChainConfig {
  return { ...chainConfig(DEVNET_CHAIN_ID, typeof urls === 'string' ? [urls] : [...urls], { pollIntervalMs: 50 }), ...overrides };
}

export interface StartIndexerOptions {
  chain?: Partial<ChainConfig>;
  /** also run the enrichment loop (token metadata, contract and proxy facts) */
  enrich?: boolean;
  /** extra ChainIndexer options (batch sizes, traces, onBatch, metrics) */
  indexer?: IndexersOptions['indexer'];
  /** retry policy of the indexer's RPC clients; by default quick, for local nodes */
  retry?: Partial<RetryPolicy>;
  /** per HTTP exchange */
  timeoutMs?: number;
  logger?: CapturingLogger;
  /** the series the indexers and the chain kinds' tasks set */
  metrics?: IndexerMetrics;
}

export interface RunningIndexer {
  db: Database;
  chain: ChainConfig;
  logger: CapturingLogger;
  /** settles when the loops end: after stop(), or rejected by a fatal error */
  done: Promise<void>;
  /** true once the loops have ended, for whatever reason */
  readonly finished: boolean;
  /** stops the loops; rejects with the fatal error that ended them, if one did */
  stop(): Promise<void>;
  /**
   * Resolves with the head once our indexed tip is the node's head block, by number and hash
   * (a replaced block at the same height is not caught up). `node` is the URL to take the head
   * from, by default the chain's first RPC URL; pass the real node's URL when that is a proxy.
   */
  caughtUp(options?: { node?: string; timeoutMs?: number }): Promise<bigint>;
}

/** One chain's pipeline as the service runs it (`startIndexers`), with the chain's kind task if it has one. */
export async function startIndexer(db: Database, urls: string | readonly string[], options: StartIndexerOptions = {}): Promise<RunningIndexer> {
  const chain = testChainConfig(urls, options.chain);
  const logger = options.logger ?? new CapturingLogger();
  await ensureChain(db, chain.chainId, chain.elasticity, chain.blobSchedule ?? null);
  const handle = startIndexers(db, [chain], logger, {
    rpc: { timeoutMs: options.timeoutMs ?? 10_000, retry: { baseDelayMs: 20, maxDelayMs: 500, urlCooldownMs: 1_000, ...options.retry } },
    indexer: options.indexer,
    enrichment: options.enrich ? { idleMs: 50 } : false,
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });
  const done = handle.done;
  let finished = false;
  done.then(
    () => (finished = true),
    () => (finished = true),
  );
  const run: RunningIndexer = {
    db,
    chain,
    logger,
    done,
    get finished() {
      return finished;
    },
    async stop() {
      await handle.stop();
      await done;
    },
    async caughtUp({ node = chain.rpcUrls[0]!, timeoutMs = 30_000 } = {}) {
      let lastFailure = '';
      return waitFor(
        async () => {
          if (finished) {
            await done; // surfaces the fatal error, if any
            throw new Error(`indexer stopped before catching up\n${logger.tail()}`);
          }
          // a database or node outage the test itself causes only delays the answer
          const [head, tip] = await Promise.all([nodeHead(node), indexedBlock(db, chain.chainId)]).catch((error: unknown) => {
            lastFailure = `\nlast probe failed: ${error instanceof Error ? error.message : String(error)}`;
            return [null, null] as const;
          });
          if (head === null) return undefined;
          return tip !== null && tip.number === head.number && tip.hash === head.hash ? head.number : undefined;
        },
        () => `indexer to reach the head of ${node}${lastFailure}\n${logger.tail()}`,
        timeoutMs,
      );
    },
  };
  return run;
}

/** Indexes from the start block to the node's current head, then stops. */
export async function indexToHead(db: Database, urls: string | readonly string[], options: StartIndexerOptions = {}): Promise<RunningIndexer> {
  const run = await startIndexer(db, urls, options);
  try {
    await run.caughtUp();
  } finally {
    await run.stop();
  }
  return run;
}

/** Indexes to the node's head with the enrichment loop, waits until it has looked at everything, then stops. */
export async function indexAndEnrich(db: Database, urls: string | readonly string[], options: StartIndexerOptions = {}): Promise<void> {
  const run = await startIndexer(db, urls, { ...options, enrich: true });
  try {
    await run.caughtUp();
    await enrichmentDone(db, run.chain.chainId);
  } finally {
    await run.stop();
  }
}

/** Empties every table the migrations made: a fresh database without paying for a new one. */
export async function emptyDatabase(db: Database): Promise<void> {
  const tables = await db.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'schema_migrations'",
  );
  await db.exec(`TRUNCATE ${tables.map((t) => `"${t.name}"`).join(', ')}`);
}

/** Waits until the enrichment loop has looked at every token and address the pipeline wrote. */
export async function enrichmentDone(db: Queryable, chainId = DEVNET_CHAIN_ID, timeoutMs = 60_000): Promise<void> {
  await waitFor(
    async () => {
      const [row] = await db.query<{ tokens: string; addresses: string }>(
        `SELECT (SELECT count(*) FROM tokens WHERE chain_id = $1 AND NOT metadata_fetched)::text AS tokens,
                (SELECT count(*) FROM addresses WHERE chain_id = $1 AND checked_at IS NULL)::text AS addresses`,
        [chainId],
      );
      return row!.tokens === '0' && row!.addresses === '0' ? true : undefined;
    },
    () => 'enrichment of every token and address',
    timeoutMs,
  );
}

/** Polls `probe` until it returns something other than undefined. */
export async function waitFor<T>(probe: () => Promise<T | undefined>, what: () => string, timeoutMs = 30_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`);
    await sleep(everyMs);
  }
}

/** The node's latest block, asked directly (no client of the code under test in between). */
export async function nodeHead(url: string): Promise<{ number: bigint; hash: Hex }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['latest', false] }),
  });
  const body = (await res.json()) as { result?: { number: Hex; hash: Hex }; error?: { message: string } };
  if (!body.result) throw new Error(`eth_getBlockByNumber(latest) at ${url}: ${body.error?.message ?? 'no result'}`);
  return { number: BigInt(body.result.number), hash: body.result.hash.toLowerCase() as Hex };
}
