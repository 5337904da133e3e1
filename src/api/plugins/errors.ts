import { logThrottle } from '../../log-throttle.js';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { HttpError, InvalidParameterError } from '../http-error.js';
import { DatabaseUnavailableError } from '../../db/client.js';
import { validationErrorBody } from '../validation-errors.js';

/**
 * Every failure leaves as one of the documented bodies: validation → 422 `{"errors":[…]}`,
 * known conditions → `{"message":…}`, database outage → 503 (busy, as with too many counts at
 * past blocks queued: 503 with Retry-After). Nothing else leaks (no stack,
 * no driver text); the cause goes to the log.
 */
const outageLog = logThrottle(10_000);

/**
 * The 503 of a database outage, or of a database busy for now (`retryAfterSeconds`: the header
 * says when to come back, and it is no fault to log as one); the caller sends its API's body.
 */
export function replyUnavailable(error: DatabaseUnavailableError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error.retryAfterSeconds === undefined) {
    // an outage fails every request alike: its trace once every 10 s, with how many since
    if (outageLog.due()) request.log.error({ err: error.cause ?? error, failedSinceLastLine: outageLog.since() }, 'database unavailable');
    return reply.code(503);
  }
  request.log.warn(error.message);
  return reply.code(503).header('retry-after', error.retryAfterSeconds);
}

export const errorsPlugin = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error.validation) {
      return reply.code(422).send(validationErrorBody(error, request));
    }
    if (error instanceof InvalidParameterError) {
      const errors = error.issues.map((i) => ({ title: 'Invalid value', source: { pointer: `/${i.param}` }, detail: i.detail }));
      return reply.code(422).send({ errors });
    }
    if (error instanceof HttpError) {
      return reply.code(error.statusCode).send({ message: error.message, ...error.extra });
    }
    if (error instanceof DatabaseUnavailableError) {
      return replyUnavailable(error, request, reply).send({ message: 'Service unavailable' });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Fastify's own client errors: bad content type, oversized URL or body, bad JSON.
      return reply.code(status).send({ message: error.message });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({ message: 'Internal server error' });
  });

  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ message: 'Not found' }));
});
