import type { ChainConfig } from '../config/config.js';
import { ensRegistryFor } from '../config/ens.js';
import type { RpcClient } from '../rpc/client.js';
import { sleep } from '../rpc/backoff.js';
import { BlockNotAvailableError, WrongChainError } from '../rpc/errors.js';
import { ForeignChainError, verifyChainId } from './chain-identity.js';
import { WriterLockLostError } from './writer-lock.js';
import type { Database } from '../db/client.js';
import type { Hex } from '../db/rows.js';
import { negativeBalances } from '../db/queries/write-balances.js';
import { firstIndexedBlock, indexedBlock, setHeadBlock } from '../db/queries/progress.js';
import { warnIfStartBlockChanged } from './start-block.js';
import { findLinkBreak, type DigestedBlock, type IndexBatch, type TransformOptions } from './transform.js';
import { BatchTaker, type BatchSizeOptions } from './batch-taker.js';
import { BlockPrefetcher } from './block-prefetcher.js';
import { HeadPoller } from './head-poller.js';
import { pruneRecordedChanges, writeBatch, type BatchExtras } from './write-batch.js';
import { HistoryHorizon } from './history-horizon.js';
import { LinkBreaks } from './link-breaks.js';
import { UnavailableBlocks } from './unavailable-blocks.js';
import { FailureLog } from './failure-log.js';
import { balancesAt, reconcileBalances, withBalanceRepair } from './reconcile.js';
import { RebasingBalances } from './rebasing.js';
import { rollBackReorg, tipReplaced, type ReorgScope } from './reorg.js';
import type { Logger } from './logger.js';
import { BlockFetcher } from './block-fetcher.js';
import { RecentAddresses } from './recent-addresses.js';
import { Backfill } from './backfill.js';
import { PartsAhead } from './parts-ahead.js';
import { StepStatus } from './step-status.js';
import type { IndexerMetrics } from './metrics.js';

export interface ChainIndexerOptions extends BatchSizeOptions {
  db: Database;
  rpc: RpcClient;
  chain: ChainConfig;
  logger: Logger;
  metrics?: IndexerMetrics;
  /** called after each batch, for progress displays */
  onBatch?: (info: { batch: IndexBatch; head: bigint; ms: number }) => void;
  /** false: never ask the node for traces (default: where it serves them) */
  traces?: boolean;
}

/** Where the next batch starts, and the hash it must follow (null before the first block). */
interface Cursor {
  next: bigint;
  parent: Hex | null;
}

/** What one run of the pipeline carries from step to step. */
interface Run extends Cursor {
  prefetcher: BlockPrefetcher<DigestedBlock>;
  heads: HeadPoller;
  heartbeat: { head: bigint; at: number };
  /** the batch after the one being written, taken and transformed meanwhile */
  following: { from: bigint; batch: Promise<IndexBatch> } | null;
  /** when the batch that wrote the tip was taken (ms); 0 for a tip from before this run */
  tipAt: number;
}

/**
 * One chain's pipeline: fetch (blocks + receipts, traces when the node has them, asked for
 * ahead of the writer block by block: ./block-prefetcher.ts) → transform (rows and balance
 * deltas, no I/O) → write (one transaction per batch, progress included), from the start block
 * to the head and then following it, rolling back on reorgs.
 */
export class ChainIndexer {
  private readonly db: Database;
  private readonly rpc: RpcClient;
  private readonly chain: ChainConfig;
  private readonly logger: Logger;
  private readonly fetcher: BlockFetcher;
  private readonly rebasing: RebasingBalances;
  private readonly batches: BatchTaker;
  private readonly recentAddresses = new RecentAddresses();
  private readonly backfill: Backfill;
  private readonly status: StepStatus;
  /** the history below --history-from-block, pruned once the index gets there */
  private readonly horizon: HistoryHorizon;
  private readonly linkBreaks: LinkBreaks;
  private readonly failures: FailureLog;
  private readonly partsAhead: PartsAhead;
  private readonly reorgScope: ReorgScope;
  private readonly unavailable: UnavailableBlocks;
  /** tokens' transfers are counted on a chain indexed from genesis only (migration 032); set by prepare */
  private countTransfers = true;

  constructor(private readonly options: ChainIndexerOptions) {
    this.db = options.db;
    this.rpc = options.rpc;
    this.chain = options.chain;
    this.logger = options.logger;
    this.fetcher = new BlockFetcher(options.rpc, options.chain, options.logger, options.traces);
    this.rebasing = new RebasingBalances(options.chain.rebasingTokens, options.chain.rebasingSweepBatches);
    this.batches = new BatchTaker(options.chain, options.logger, options);
    this.backfill = new Backfill(options.db, options.chain.chainId, options.chain.reorgWindow, options.logger);
    this.status = new StepStatus(options.db, options.chain.chainId);
    this.failures = new FailureLog(options.logger, { chainId: options.chain.chainId }, 'error', {
      failed: 'indexing step failed; retrying from the last committed block',
      recovered: 'indexing recovered',
    });
    this.linkBreaks = new LinkBreaks(options.chain.chainId, options.logger, this.status, Math.min(options.chain.pollIntervalMs, 500));
    this.partsAhead = new PartsAhead(options.db, options.rpc, options.chain.chainId, options.logger, ensRegistryFor(options.chain.chainId, options.chain.ens));
    this.horizon = new HistoryHorizon(options.db, options.chain.chainId, options.chain.historyFromBlock, options.logger);
    this.reorgScope = { db: options.db, rpc: options.rpc, chain: options.chain, logger: options.logger };
    this.unavailable = new UnavailableBlocks(options.chain.chainId, options.logger, this.status);
  }

  private get label() {
    return { chainId: this.chain.chainId };
  }

  private get metricLabel() {
    return { chain_id: String(this.chain.chainId) };
  }

  async run(signal: AbortSignal): Promise<void> {
    const run = await this.prepare(signal);
    while (!signal.aborted) {
      try {
        await this.step(run, signal);
      } catch (error) {
        if (signal.aborted) break;
        await this.recover(run, error, signal);
      }
    }
  }

  /** Before the first step: the node checked, what a crash left settled, the resume point found. */
  private async prepare(signal: AbortSignal): Promise<Run> {
    // at 0 from the start, so an alert on its rate has a series before the first failure
    this.options.metrics?.stepFailures.inc(this.metricLabel, 0);
    await verifyChainId(this.rpc, this.chain.chainId);
    const prefetcher = new BlockPrefetcher(
      { fetch: (block, fetchSignal) => this.fetcher.fetch(block, fetchSignal), inFlight: () => this.batches.blocksInFlight, window: () => this.batches.fetchWindow },
      signal,
    );
    const heads = new HeadPoller(this.rpc, this.chain.pollIntervalMs);
    await this.reconcileLeftovers();
    const backfilling = await this.startBackfill();
    const tip = await indexedBlock(this.db, this.chain.chainId);
    const run: Run = { prefetcher, heads, ...this.cursorAt(tip), heartbeat: { head: -1n, at: 0 }, following: null, tipAt: 0 };
    await this.partsAhead.load();
    this.logger.info({ ...this.label, from: run.next.toString(), backfill: backfilling }, tip ? 'resuming' : 'starting');
    const first = tip ? await firstIndexedBlock(this.db, this.chain.chainId) : null;
    warnIfStartBlockChanged(first, this.chain, this.logger);
    this.countTransfers = (first ?? this.chain.startBlock) === 0n;
    // the node's capabilities are asked beside the first head, not after it: one round trip
    // fewer before the first blocks go out (a probe that fails is asked again by the first fetch)
    this.fetcher.probe(run.next).catch(() => undefined);
    return run;
  }

  private cursorAt(tip: { number: bigint; hash: Hex } | null): Cursor {
    return { next: tip ? tip.number + 1n : this.chain.startBlock, parent: tip?.hash ?? null };
  }

  /** One step: a head from the node, then one batch written, or a reorg handled, or a wait at the head. */
  private async step(run: Run, signal: AbortSignal): Promise<void> {
    const head = await run.heads.atLeast(run.next, signal);
    await this.beat(run, head);
    if (await this.partsAhead.setBackUnlessOnNode(run.next - 1n, head)) return;
    if (run.next > head) return this.atHead(run, head, signal);
    const started = Date.now();
    const batch = run.following?.from === run.next ? await run.following.batch : await this.batches.take(run.prefetcher, run.next, head, this.transformOptions(head), this.partsAhead.through);
    run.following = null;
    if (await this.linkBroken(run, batch, signal)) return;
    if (await this.partsAhead.setBackUnlessOnNode(run.next - 1n, head, batch)) {
      run.prefetcher.reset();
      return;
    }
    // The next batch is taken and transformed while this one is written: the transform's
    // CPU beside the database's, not after it. It is dropped with the prefetcher on any upset.
    if (batch.to < head) {
      const taking = this.batches.take(run.prefetcher, batch.to + 1n, head, this.transformOptions(head));
      taking.catch(() => undefined); // awaited when its turn comes
      run.following = { from: batch.to + 1n, batch: taking };
    }
    await this.commit(run, batch, head, started);
  }

  /**
   * The heartbeat (head and polled_at, for /health), while blocks or heads keep coming from the
   * node: at most once a poll interval, unless the head moved. Every step was one more commit
   * (and fsync) beside the writer's own.
   */
  private async beat(run: Run, head: bigint): Promise<void> {
    if (head !== run.heartbeat.head || Date.now() - run.heartbeat.at >= this.chain.pollIntervalMs) {
      await setHeadBlock(this.db, this.chain.chainId, head);
      run.heartbeat = { head, at: Date.now() };
    }
    this.options.metrics?.headBlock.set(this.metricLabel, Number(head));
    this.options.metrics?.polledAt.set(this.metricLabel, Date.now() / 1000);
  }

  /** At the head: the backfill finished, the tip checked against the node's, then a poll interval's wait. */
  private async atHead(run: Run, head: bigint, signal: AbortSignal): Promise<void> {
    run.prefetcher.reset();
    run.following = null;
    await this.backfill.finish();
    // A branch as long as ours or shorter never shows up as a broken link ahead of us:
    // compare the node's block at our height (or its head, if lower) with ours. Not the tip
    // fetched moments ago, though: that asked every block twice at the head (a fast-chain
    // review); a replaced one shows at the next check, a poll interval on.
    const fresh = Date.now() - run.tipAt < this.chain.pollIntervalMs;
    const replaced = run.parent !== null && !fresh && (await tipReplaced(this.reorgScope, run.next - 1n, run.parent, head, signal));
    const rolledBack = replaced ? await this.handleReorg(run.next) : null;
    if (rolledBack) {
      Object.assign(run, rolledBack);
      return;
    }
    await this.stepSucceeded();
    await sleep(this.chain.pollIntervalMs, signal);
  }

  /** Whether the batch does not follow our tip (a reorg, handled here, or a range fetched across one). */
  private async linkBroken(run: Run, batch: IndexBatch, signal: AbortSignal): Promise<boolean> {
    const brokenAt = findLinkBreak(batch.blocks, run.parent);
    if (brokenAt === null) {
      this.linkBreaks.clear();
      return false;
    }
    run.prefetcher.reset();
    // the branch the node is on now may be shorter than the head we knew
    run.heads.forget();
    const rolledBack = brokenAt === run.next && run.parent !== null ? await this.handleReorg(run.next) : null;
    if (rolledBack) Object.assign(run, rolledBack);
    // the node reorganised while the range was being fetched (or its chain contradicts
    // itself: ./link-breaks.ts): fetch it again
    else await sleep(await this.linkBreaks.seen(batch.blocks, brokenAt, run.parent), signal);
    return true;
  }

  /** The batch written (through the backfill path while it lasts) and the cursor moved past it. */
  private async commit(run: Run, batch: IndexBatch, head: bigint, started: number): Promise<void> {
    // the head-following path once the backfill has reached where a reorg could
    await this.backfill.beforeBatch(batch.from, head);
    const addresses = this.recentAddresses.unseen(batch.addresses);
    // in parts while backfilling, except the chain's first batch (a crash inside it would
    // leave parts ahead of no indexed block to set them back to)
    await this.write(batch, addresses, {
      inParts: this.partsAhead.pending || (this.backfill.writing && this.backfillInParts() && run.parent !== null),
      continues: { block: batch.from - 1n, orNone: run.parent === null },
    });
    this.partsAhead.clear();
    this.recentAddresses.remember(addresses);
    await this.afterBatch(batch, head, Date.now() - started);
    await this.backfill.afterBatch(batch.to, head);
    run.parent = batch.blocks[batch.blocks.length - 1]!.hash;
    run.next = batch.to + 1n;
    run.tipAt = started;
    await this.stepSucceeded();
  }

  /** A failed step: what no retry cures is thrown; otherwise said, waited out, and resumed from the committed state. */
  private async recover(run: Run, error: unknown, signal: AbortSignal): Promise<void> {
    run.prefetcher.reset();
    run.following = null;
    run.heads.forget();
    // no retry cures these (another writer took the chain over: run.ts waits for the lock again)
    if (error instanceof WrongChainError || error instanceof ForeignChainError || error instanceof WriterLockLostError) throw error;
    if (error instanceof BlockNotAvailableError) {
      // the head we planned the range with went away (a reorg to a shorter branch, or a
      // lagging backend): plan again from a fresh head, and say so if that never heals
      if (await this.unavailable.seen(error)) this.options.metrics?.stepFailures.inc(this.metricLabel);
      return;
    }
    // RPC faults are retried inside the client; what reaches here is a database outage or
    // a fault that outlived the client's patience: wait and carry on from the committed state.
    this.failures.failed(error);
    this.options.metrics?.stepFailures.inc(this.metricLabel);
    await this.status.failed(error);
    await sleep(2_000, signal).catch(() => undefined);
    const tip = await indexedBlock(this.db, this.chain.chainId).catch(() => undefined);
    if (tip !== undefined) Object.assign(run, this.cursorAt(tip));
    // a step that failed between the parts' commits and the batch's leaves parts ahead; if
    // they cannot be read now, the write refuses any batch they overlap (PartsAheadError)
    await this.partsAhead.load().catch(() => undefined);
  }

  /** A step went through: /health's failure cleared, the end of a run of failures said. */
  private async stepSucceeded(): Promise<void> {
    await this.status.succeeded();
    this.failures.succeeded();
    this.unavailable.clear();
  }

  /**
   * The settings for a batch below `head` (those of each block's digest are in fetchBlock).
   * Overridden only by bench:index's baseline without the balance history
   * (bench/lib/indexer-without-history.ts): no option here turns the history off, since answers
   * at a past block would then be wrong.
   */
  protected transformOptions(head: bigint): TransformOptions {
    return { recordAbove: head - BigInt(this.chain.reorgWindow), countTransfers: this.countTransfers };
  }

  /**
   * Whether this run backfills (./backfill.ts). Overridden only by bench:index's baseline
   * without the backfill path (bench/lib/indexer-without-backfill.ts).
   */
  protected startBackfill(): Promise<boolean> {
    return this.backfill.start();
  }

  /**
   * Whether the backfill writes its batches' tokens in parts at once (./write-parts.ts): on
   * PostgreSQL, whose connections each have a backend of their own (PGlite has one). Overridden
   * only by bench:index's baseline in one transaction (bench/lib/indexer-without-parts.ts).
   */
  protected backfillInParts(): boolean {
    return this.db.engine === 'postgres';
  }

  /** A reorg below `next` rolled back (./reorg.ts); null when no block of ours was replaced. */
  private async handleReorg(next: bigint): Promise<Cursor | null> {
    const cursor = await rollBackReorg(this.reorgScope, next, {
      // the backfill's deferred indexes first: a rollback reads and writes by them
      before: () => this.backfill.finish(),
      recorded: !this.partsAhead.pending,
    });
    if (cursor === null) return null;
    this.partsAhead.clear();
    this.options.metrics?.reorgs.inc(this.metricLabel);
    return cursor;
  }

  /**
   * Writes the batch with the balances it must not take from its events alone — rebasing
   * tokens' touched balances and the sweep's slice (rebasing.ts), and any balance the batch would
   * drive negative — read with balanceOf at its last block before the transaction and written in
   * it: a batch and its reconciliation commit together or not at all.
   */
  private async write(batch: IndexBatch, addresses: readonly Hex[], how: Pick<BatchExtras, 'inParts' | 'continues'>): Promise<void> {
    const chainId = this.chain.chainId;
    const plan = await this.rebasing.plan(this.db, chainId, batch);
    const reconciled = await balancesAt(this.rpc, chainId, plan.keys, batch.to);
    let repaired = 0;
    await withBalanceRepair(
      this.rpc,
      chainId,
      batch.to,
      reconciled,
      (rows) => writeBatch(this.db, chainId, batch, { addresses, reconciled: rows, sweep: plan.sweep, ...how }),
      (keys) => {
        repaired += keys.length;
        this.rebasing.learn(keys.map((k) => k.token));
        this.logger.warn({ ...this.label, count: keys.length, block: batch.to.toString() }, 'balances that would go negative set from balanceOf');
      },
    );
    this.options.metrics?.reconciled.inc(this.metricLabel, reconciled.length + repaired);
    if (plan.passComplete) this.logger.debug({ ...this.label, block: batch.to.toString() }, 'rebasing tokens: sweep over every holder complete');
  }

  /** Negative rows written by a version before batches settled their balances: mend them first. */
  private async reconcileLeftovers(): Promise<void> {
    const tip = await indexedBlock(this.db, this.chain.chainId);
    const keys = await negativeBalances(this.db, this.chain.chainId);
    if (tip && keys.length > 0) await reconcileBalances(this.db, this.rpc, this.chain.chainId, keys, tip.number);
  }

  private async afterBatch(batch: IndexBatch, head: bigint, ms: number): Promise<void> {
    this.batches.written(batch);
    if (batch.to % 100n === 0n || head - batch.to < BigInt(this.chain.reorgWindow)) {
      // awaited: a rollback must never read the recorded range while a prune shrinks it
      await pruneRecordedChanges(this.db, this.chain.chainId, head - BigInt(this.chain.reorgWindow) * 2n).catch((error: unknown) =>
        this.logger.warn({ ...this.label, err: error instanceof Error ? error.message : String(error) }, 'pruning balance changes failed'),
      );
    }
    await this.horizon.afterBatch(batch.to, head);
    // one line per commit at debug level: where a kill or a stop left the index, to the block
    this.logger.debug({ ...this.label, indexed: batch.to.toString(), head: head.toString(), behind: Number(head - batch.to) }, 'batch committed');
    this.options.metrics?.blocks.inc(this.metricLabel, batch.blocks.length);
    this.options.metrics?.transfers.inc(this.metricLabel, batch.transfers);
    this.options.metrics?.indexedBlock.set(this.metricLabel, Number(batch.to));
    this.options.onBatch?.({ batch, head, ms });
  }
}
