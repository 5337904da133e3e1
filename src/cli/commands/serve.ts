import { boundHeapGrowth } from '../../indexer/heap-growth.js';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../api/server.js';
import type { Runtime } from '../runtime.js';

export async function startApi(runtime: Runtime): Promise<FastifyInstance> {
  // Under a flood, pages the cache drops are garbage in the old generation with their bodies
  // outside the heap: left to grow up to 4× before a full collection, a reader's RSS went
  // +120 MB in 3 of 7 hostile-traffic runs on a loaded machine; bounded as the indexer's, +30–34 MB in 5 of 5.
  boundHeapGrowth();
  const app = await buildServer({
    db: runtime.db,
    api: runtime.config.api,
    redis: runtime.redis,
    logger: runtime.logger.child({ role: 'api' }),
    metrics: runtime.metrics.registry,
  });
  const { host, port } = runtime.config.api;
  await app.listen({ host, port });
  runtime.logger.info({ url: `http://${host}:${port}` }, 'API listening');
  return app;
}
