import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MAX_PARAMETER_LENGTH } from '../limits.js';

/**
 * A query value over the limit, reported as the schema validator reports a `maxLength`
 * failure: the API answers 422 with the reference's text, the Etherscan-style calls their
 * NOTOK envelope.
 */
export class ParameterTooLongError extends Error {
  override name = 'ParameterTooLongError';
  readonly validationContext = 'querystring';
  readonly validation: Array<{ keyword: string; instancePath: string; params: Record<string, unknown> }>;
  constructor(parameter: string) {
    super(`query parameter longer than ${MAX_PARAMETER_LENGTH} characters`);
    this.validation = [{ keyword: 'maxLength', instancePath: `/${parameter}`, params: { limit: MAX_PARAMETER_LENGTH } }];
  }
}

const tooLong = (value: unknown): boolean =>
  typeof value === 'string' ? value.length > MAX_PARAMETER_LENGTH : Array.isArray(value) && value.some(tooLong);

/**
 * Every query value of a keyed route has a length limit, whatever the route's schema says of
 * it (integers arrive as text of any length, unknown Etherscan parameters are free), and it is
 * checked before anything keeps or compares it: the restricted check, the page cache.
 */
export function parameterLimits(app: FastifyInstance): void {
  // a callback hook: it runs on every keyed request, cached pages included
  app.addHook('preValidation', (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    const query = request.query as Record<string, unknown>;
    for (const name in query) {
      if (tooLong(query[name])) return done(new ParameterTooLongError(name));
    }
    done();
  });
}
