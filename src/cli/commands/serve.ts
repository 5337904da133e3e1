import { boundHeapGrowth } from '../../indexer/heap-growth.js';
import { buildServer } from '../../api/server.js';
import { ShutdownDrain } from '../../api/shutdown-drain.js';
import type { Runtime } from '../runtime.js';

/** How the process was told to stop: SIGTERM drains first; `hurry` is a second signal. */
export interface StopRequest {
  signal: string;
  hurry: AbortSignal;
}

export async function startApi(runtime: Runtime): Promise<(stop: StopRequest) => Promise<void>> {
  // Under a flood, pages the cache drops are garbage in the old generation with their bodies
  // outside the heap: left to grow up to 4× before a full collection, a reader's RSS went
  // +120 MB in 3 of 7 hostile-traffic runs on a loaded machine; bounded as the indexer's, +30–34 MB in 5 of 5.
  boundHeapGrowth();
  const drain = new ShutdownDrain();
  const app = await buildServer({
    db: runtime.db,
    api: runtime.config.api,
    redis: runtime.redis,
    logger: runtime.logger.child({ role: 'api' }),
    metrics: runtime.metrics.registry,
    drain,
  });
  const { host, port, shutdownDrainMs } = runtime.config.api;
  await app.listen({ host, port });
  runtime.logger.info({ url: `http://${host}:${port}` }, 'API listening');
  return async ({ signal, hurry }) => {
    // Ctrl-C at a terminal stops at once; a supervisor's SIGTERM gives the balancer time
    const maxMs = signal === 'SIGTERM' ? shutdownDrainMs : 0;
    if (maxMs > 0) runtime.logger.info({ maxMs }, 'draining: /health answers 503, requests are served until they stop coming');
    const drained = await drain.run(app.server, maxMs, hurry);
    if (maxMs > 0) runtime.logger.info({ ms: drained.ms, endedBy: drained.endedBy }, 'drained: closing the listener');
    await app.close();
  };
}
