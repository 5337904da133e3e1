import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** A drain ends this long after the last request that was not a health probe. */
export const DRAIN_QUIET_MS = 1_000;

const isHealthProbe = (url: string | undefined) => url !== undefined && (url === '/health' || url.startsWith('/health?') || url.startsWith('/health/'));

/**
 * The time between SIGTERM and the listener's close. A load balancer goes on sending for a
 * moment after it is told a replica is leaving (its probe interval, an endpoint list's
 * propagation): a server that closed at once failed those requests (rolling-upgrade review:
 * 46–153 failed requests with a 1-s balancer lag). While draining, `/health` answers 503 so a
 * balancer that probes takes the replica out, every answer closes its connection so a client's
 * next request opens one the balancer sends elsewhere, and the drain ends once nothing but
 * probes has come for DRAIN_QUIET_MS, or at its limit.
 */
export class ShutdownDrain {
  #startedAt: number | null = null;

  /** true from SIGTERM until the server closes */
  get draining(): boolean {
    return this.#startedAt !== null;
  }

  /** Serves on until quiet or `maxMs`; `hurry` (a second signal) ends it at once. Says what ended it. */
  async run(server: Server, maxMs: number, hurry: AbortSignal): Promise<{ ms: number; endedBy: 'quiet' | 'limit' | 'signal' }> {
    const startedAt = Date.now();
    this.#startedAt = startedAt;
    if (maxMs <= 0) return { ms: 0, endedBy: 'limit' };
    let last = startedAt;
    const onRequest = (request: IncomingMessage, response: ServerResponse) => {
      response.setHeader('connection', 'close');
      if (!isHealthProbe(request.url)) last = Date.now();
    };
    // before Fastify's own listener, so the header is set before any answer is written
    server.prependListener('request', onRequest);
    try {
      const end = startedAt + maxMs;
      for (;;) {
        const now = Date.now();
        const wake = Math.min(end, last + DRAIN_QUIET_MS);
        if (hurry.aborted) return { ms: now - startedAt, endedBy: 'signal' };
        if (now >= wake) return { ms: now - startedAt, endedBy: now < end ? 'quiet' : 'limit' };
        await sleep(wake - now, undefined, { signal: hurry }).catch(() => undefined);
      }
    } finally {
      server.off('request', onRequest);
    }
  }
}
