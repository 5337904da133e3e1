import Fastify, { type FastifyInstance } from 'fastify';
import { collectDefaultMetrics, type Registry } from 'prom-client';

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

/**
 * The registry's text, rendered at most once a second: a scrape every few seconds sees fresh
 * series, and a flood of requests (the API port's `/metrics` needs no key) costs a string
 * reply each, not a render of every series (~1 ms).
 */
export function metricsText(registry: Registry, maxAgeMs = 1_000): () => Promise<string> {
  let rendered: { at: number; text: Promise<string> } | null = null;
  return () => {
    const now = performance.now();
    if (rendered === null || now - rendered.at >= maxAgeMs) {
      const text = registry.metrics();
      rendered = { at: now, text };
      // a failed render is not kept
      text.catch(() => (rendered = null));
    }
    return rendered.text;
  };
}
