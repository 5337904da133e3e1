import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DatabaseUnavailableError } from '../../../db/client.js';
import { HttpError } from '../../http-error.js';

/** Every answer of the Etherscan-style API: status "1" with data, "0" without. */
export interface Envelope<T = unknown> {
  status: '0' | '1';
  message: string;
  result: T;
}

export const ok = <T>(result: T): Envelope<T> => ({ status: '1', message: 'OK', result });

/** A well-formed query that matched nothing: status "0" but an empty list, as that API does. */
export const noRecords = (message: string): Envelope<never[]> => ({ status: '0', message, result: [] });

export const notOk = (result: string): Envelope<string> => ({ status: '0', message: 'NOTOK', result });

/** A refused request; the handler turns it into `{"status":"0","message":"NOTOK","result":text}`. */
export class EtherscanError extends Error {
  override name = 'EtherscanError';
}

/** The texts clients of that API match on, for conditions the keyed scope raises itself. */
const SCOPE_ERRORS: Record<number, string> = {
  401: 'Invalid API Key',
  403: 'Error! Restricted access',
  404: 'Missing or unsupported chainid parameter',
  429: 'Max rate limit reached',
};

/**
 * Refusals are HTTP 200 with a NOTOK envelope, as that API answers them (its clients read the
 * body, not the status); the rate-limit headers stay on the reply. Server-side failures keep
 * their 5xx status so proxies and monitors see them, with an envelope body all the same.
 */
export function etherscanErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof EtherscanError) return reply.code(200).send(notOk(error.message));
  if (error instanceof HttpError && SCOPE_ERRORS[error.statusCode]) {
    return reply.code(200).send(notOk(SCOPE_ERRORS[error.statusCode]!));
  }
  if (error.validation) return reply.code(200).send(notOk('Error! Invalid parameter'));
  if (error instanceof DatabaseUnavailableError) {
    request.log.error({ err: error.cause ?? error }, 'database unavailable');
    return reply.code(503).send(notOk('Error! Service unavailable'));
  }
  request.log.error({ err: error }, 'unhandled error');
  return reply.code(500).send(notOk('Error! Internal server error'));
}
