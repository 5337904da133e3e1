import type { FastifyInstance } from 'fastify';
import { logThrottle } from '../log-throttle.js';
import { loggedUrl, type LoggedPaths } from './redact.js';

/** The refusals a flood is made of: a wrong key, a spent budget. */
const FLOOD_STATUSES = [401, 429] as const;

/**
 * One `request` line per answer, its URL redacted (redact.ts). Refusals of a wrong key or a spent
 * budget are logged at most once a second each, with how many were held back since (`heldBack`):
 * a client sending thousands a second would otherwise write gigabytes an hour, and /metrics
 * counts every one of them anyway.
 */
export function requestLog(app: FastifyInstance, paths: LoggedPaths): void {
  const throttles = new Map<number, ReturnType<typeof logThrottle>>(FLOOD_STATUSES.map((status) => [status, logThrottle(1_000)]));
  app.addHook('onResponse', async (request, reply) => {
    const status = request.refusedAs ?? reply.statusCode;
    const throttle = throttles.get(status);
    if (throttle && !throttle.due()) return;
    const heldBack = throttle?.since() ?? 0;
    request.log.info(
      {
        method: request.method,
        url: loggedUrl(request, paths),
        status: reply.statusCode,
        ...(request.refusedAs === null ? {} : { refusedAs: request.refusedAs }),
        ms: Math.round(reply.elapsedTime * 100) / 100,
        // who: the client's address and the key's id (never the key)
        ip: request.ip,
        ...(request.apiKey ? { key: request.apiKey.logged } : {}),
        ...(heldBack > 0 ? { heldBack } : {}),
      },
      'request',
    );
  });
}
