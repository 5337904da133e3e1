import { setMaxListeners } from 'node:events';
import type { RpcClient, RpcClientOptions } from '../rpc/client.js';
import { chainRpcClient, otherNodesRpc } from './chain-rpc.js';
import type { Database } from '../db/client.js';
import type { ChainConfig } from '../config/config.js';
import { ChainIndexer, type ChainIndexerOptions } from './chain-indexer.js';
import { runEnrichment } from './enrich.js';
import { chainKindTasks } from '../chains/index.js';
import type { IndexerMetrics } from './metrics.js';
import { progressReporter } from './progress.js';
import type { Logger } from './logger.js';
import { boundHeapGrowth } from './heap-growth.js';
import { takeWriterLock, WriterLockLostError, type WriterLock } from './writer-lock.js';
import { recordIndexerFailure } from '../db/queries/indexer-status.js';
import { indexedBlock } from '../db/queries/progress.js';
import { rootSettings } from '../config/settings.js';

export interface IndexerHandle {
  /** settles when every chain's loop has ended (after stop); rejects when every chain has stopped on an error of its own */
  done: Promise<void>;
  stop(): Promise<void>;
}

/**
 * The service takes everything from the chains' config; the rest is for the test harness
 * (test/support/indexer-harness.ts), which runs this same wiring with its own knobs.
 */
export interface IndexersOptions {
  metrics?: IndexerMetrics;
  /** every RPC client's timeout and retry policy, the kind's (Arbitrum: the parent chain's) too */
  rpc?: Partial<Pick<RpcClientOptions, 'timeoutMs' | 'retry'>>;
  /** ChainIndexer options the config does not give (batch bounds, traces, an onBatch of its own) */
  indexer?: Partial<Omit<ChainIndexerOptions, 'db' | 'rpc' | 'chain' | 'logger'>>;
  /** the enrichment loop's pause when it finds nothing to do; false: no enrichment loop */
  enrichment?: { idleMs?: number } | false;
  /** PostgreSQL: how long a silent writer keeps its chains (the `writerLeaseMs` setting; writer-lock.ts) */
  writerLeaseMs?: number;
}

/** Starts one pipeline and one enrichment loop per chain, all in this process. */
export function startIndexers(db: Database, chains: readonly ChainConfig[], logger: Logger, options: IndexersOptions = {}): IndexerHandle {
  boundHeapGrowth();
  const controller = new AbortController();
  const signal = controller.signal;
  // every in-flight RPC call and wait listens on this one signal
  setMaxListeners(0, signal);
  const clients: RpcClient[] = [];
  /**
   * One chain's pipeline, enrichment loop and kind tasks, writing through the writer lock's
   * fenced database, until the process stops (resolves), the lock is lost (WriterLockLostError)
   * or a fatal error (rejects). Nothing of it is still running when it settles.
   */
  const runChain = async (chain: ChainConfig, lock: WriterLock): Promise<void> => {
    // the chain's loops stop with the process, or alone when the chain fails
    const own = new AbortController();
    const chainSignal = AbortSignal.any([signal, own.signal]);
    setMaxListeners(0, chainSignal);
    const rpc = chainRpcClient(chain, logger, { ...options.rpc, signal: chainSignal });
    clients.push(rpc);
    const metrics = options.metrics ? { metrics: options.metrics } : {};
    const indexer = new ChainIndexer({ db: lock.db, rpc, chain, logger, ...metrics, onBatch: progressReporter(chain.chainId, logger), ...options.indexer });
    // a kind's task (Arbitrum: the parent chain) runs beside the pipeline and never holds it up:
    // what it asks of this chain's node waits while the pipeline's calls do (the background
    // lane); the parent's nodes get the chain's RPC budget too, their log lines say whose they are
    const tasks = chainKindTasks({ db: lock.db, chain, rpc: rpc.background, logger, createRpc: otherNodesRpc(chain, logger, { ...options.rpc, signal: chainSignal }), ...metrics });
    const enrichment = options.enrichment ?? {};
    const work = [
      indexer.run(chainSignal),
      // decorations wait while the pipeline asks the node (its lane goes first)
      enrichment && runEnrichment(lock.db, rpc.background, chain.chainId, logger, chainSignal, enrichment.idleMs),
      ...tasks.map((task) => task(chainSignal)),
    ];
    try {
      await Promise.race([Promise.all(work), lock.lost]);
    } catch (error) {
      own.abort();
      // nothing of the chain's may still write once its lock is released
      await Promise.allSettled(work);
      throw error;
    }
  };

  let stopped = 0;
  const loops = chains.map(async (chain) => {
    if (chain.startBlock > 0n && (await indexedBlock(db, chain.chainId)) === null) {
      logger.warn(
        { chainId: chain.chainId, startBlock: chain.startBlock.toString() },
        'starting past block 0: a token created before the start block will list only the holders that moved since, with their balanceOf (README, "Starting past block 0")',
      );
    }
    while (!signal.aborted) {
      const lock = await takeWriterLock(db, chain.chainId, logger, signal, options.writerLeaseMs ?? rootSettings.writerLeaseMs.default);
      if (lock === null) return;
      try {
        await runChain(chain, lock);
        return;
      } catch (error) {
        if (signal.aborted) return;
        // the lock's connection went (a database restart, an idle-connection reaper): the
        // chain waits for the lock again; its fenced transactions kept any takeover clean
        if (error instanceof WriterLockLostError) {
          logger.warn({ chainId: chain.chainId, err: error.message }, 'lost the writer lock: taking it again');
          continue;
        }
        // one chain's fault (a node reset to another chain, a setting its node refutes) stops
        // that chain only: the others go on, /health and the log say which stopped and why; the
        // last chain gone ends the process (cli/commands/run.ts)
        // recorded whether or not it is the last: the readers' /health says so either way
        await recordIndexerFailure(db, chain.chainId, 'stopped').catch(() => undefined);
        if (++stopped === chains.length) throw error;
        logger.error({ chainId: chain.chainId, err: error }, 'indexing of this chain stopped on an error it does not retry; the other chains go on');
        return;
      } finally {
        await lock.release();
      }
    }
  });
  // a process-level fatal error ends every loop: the service exits on it (cli/commands/run.ts),
  // and whoever awaits `done` sees no loop of the failed pipeline still running
  const done = Promise.all(loops).then(
    () => undefined,
    (error: unknown) => {
      controller.abort();
      throw error;
    },
  );
  return {
    done,
    async stop() {
      controller.abort();
      await done.catch(() => undefined);
      for (const rpc of clients) rpc.close();
    },
  };
}
