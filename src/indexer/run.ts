import { setMaxListeners } from 'node:events';
import type { RpcClient } from '../rpc/client.js';
import { chainRpcClient } from './chain-rpc.js';
import type { Database } from '../db/client.js';
import type { ChainConfig } from '../config/config.js';
import { ChainIndexer } from './chain-indexer.js';
import { runEnrichment } from './enrich.js';
import { chainKindTasks } from '../chains/index.js';
import type { IndexerMetrics } from './metrics.js';
import { progressReporter } from './progress.js';
import type { Logger } from './reorg.js';

export interface IndexerHandle {
  /** settles when every chain's loop has ended (after stop, or on a fatal error) */
  done: Promise<void>;
  stop(): Promise<void>;
}

/** Starts one pipeline and one enrichment loop per chain, all in this process. */
export function startIndexers(
  db: Database,
  chains: readonly ChainConfig[],
  logger: Logger,
  metrics?: IndexerMetrics,
): IndexerHandle {
  const controller = new AbortController();
  // every in-flight RPC call and wait listens on this one signal
  setMaxListeners(0, controller.signal);
  const clients: RpcClient[] = [];
  const loops = chains.map(async (chain) => {
    const rpc = chainRpcClient(chain, logger, { signal: controller.signal });
    clients.push(rpc);
    const indexer = new ChainIndexer({
      db,
      rpc,
      chain,
      logger,
      ...(metrics ? { metrics } : {}),
      onBatch: progressReporter(chain.chainId, logger),
    });
    // a kind's task (Arbitrum: the parent chain) runs beside the pipeline and never holds it up
    const tasks = chainKindTasks({
      db,
      chain,
      rpc,
      logger,
      // the parent's nodes get the chain's RPC budget (in flight, batch size, calls per second) too
      createRpc: (urls) => chainRpcClient(chain, logger, { urls, signal: controller.signal }),
    });
    await Promise.all([
      indexer.run(controller.signal),
      runEnrichment(db, rpc, chain.chainId, logger, controller.signal),
      ...tasks.map((task) => task(controller.signal)),
    ]);
  });
  const done = Promise.all(loops).then(() => undefined);
  return {
    done,
    async stop() {
      controller.abort();
      await done.catch(() => undefined);
      for (const rpc of clients) rpc.close();
    },
  };
}
