import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../api/server.js';
import type { Runtime } from '../runtime.js';

export async function startApi(runtime: Runtime): Promise<FastifyInstance> {
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
