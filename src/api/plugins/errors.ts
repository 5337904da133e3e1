import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { HttpError, InvalidParameterError } from '../http-error.js';
import { DatabaseUnavailableError } from '../../db/client.js';
import { CountsBusyError } from '../../db/queries/count-gate.js';
import { validationErrorBody } from '../validation-errors.js';

/**
 * Every failure leaves as one of the documented bodies: validation → 422 `{"errors":[…]}`,
 * known conditions → `{"message":…}`, database outage → 503 (too many counts at past blocks
 * queued: 503 with Retry-After). Nothing else leaks (no stack,
 * no driver text); the cause goes to the log.
 */
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
    if (error instanceof CountsBusyError) {
      request.log.warn(error.message);
      return reply.code(503).header('retry-after', error.retryAfterSeconds).send({ message: 'Service unavailable' });
    }
    if (error instanceof DatabaseUnavailableError) {
      request.log.error({ err: error.cause ?? error }, 'database unavailable');
      return reply.code(503).send({ message: 'Service unavailable' });
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
