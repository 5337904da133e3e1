import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, type Registry } from 'prom-client';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The status a refusal stands for where the answer's convention is a 200 (the
     * Etherscan-style envelope's NOTOK): metrics count it under this one, so refusals show.
     */
    refusedAs: number | null;
  }
}

/**
 * Requests by route pattern (never the raw URL: bounded label values) and status, and their
 * server-side time, for dashboards and alerts on 429s, 5xx and latency. A request no route
 * matched counts as `unmatched`; a refusal answered 200 by its API's convention, as what it is.
 */
export function requestMetrics(app: FastifyInstance, registry: Registry): void {
  const labelNames = ['route', 'status'] as const;
  const requests = new Counter({ name: 'explorer_api_requests_total', help: 'Requests answered, by route pattern and status', labelNames, registers: [registry] });
  const seconds = new Histogram({
    name: 'explorer_api_request_duration_seconds',
    help: 'Server-side time per request (reply.elapsedTime), by route pattern',
    labelNames: ['route'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  app.decorateRequest('refusedAs', null);
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ route, status: String(request.refusedAs ?? reply.statusCode) });
    seconds.observe({ route }, reply.elapsedTime / 1000);
    done();
  });
}
