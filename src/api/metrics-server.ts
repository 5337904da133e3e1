import Fastify, { type FastifyInstance } from 'fastify';
import { collectDefaultMetrics, type Registry } from 'prom-client';
import { renderedAtMostEvery } from './render-cache.js';

/**
 * `/metrics` alone, on a port of its own: for a process that indexes without serving the API
 * (`explorer index --metrics-port`), whose series would otherwise be nowhere. In-memory text,
 * no database: nothing a scrape, or anyone else, can make costly.
 */
export async function startMetricsServer(registry: Registry, host: string, port: number): Promise<FastifyInstance> {
  withProcessMetrics(registry);
  const app = Fastify({ logger: false });
  const text = metricsText(registry);
  app.get('/metrics', async (_request, reply) => reply.type(registry.contentType).send(await text()));
  await app.listen({ host, port });
  return app;
}

/** Node's process series in `registry`, once: the API and the metrics port may share one. */
export function withProcessMetrics(registry: Registry): void {
  if (registry.getSingleMetric('process_cpu_user_seconds_total') === undefined) collectDefaultMetrics({ register: registry });
}

/** The registry's text, rendered at most once a second (a scrape every few seconds sees fresh series). */
export const metricsText = (registry: Registry, maxAgeMs = 1_000): (() => Promise<string>) => renderedAtMostEvery(maxAgeMs, () => registry.metrics());
