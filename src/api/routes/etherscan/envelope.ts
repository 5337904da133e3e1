import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DatabaseUnavailableError } from '../../../db/client.js';
import { replyUnavailable } from '../../plugins/errors.js';
import { HttpError } from '../../http-error.js';
import { presentedKey } from '../../auth/key-resolver.js';

/** Every answer of the Etherscan-style API: status "1" with data, "0" without. */
export interface Envelope<T = unknown> {
  status: '0' | '1';
  message: string;
  result: T;
}

/**
 * The texts of that API's refusals, as its published documentation ("Common Error Messages")
 * and recorded answers give them; docs/ETHERSCAN.md says where each was found. Texts marked
 * ours answer conditions that API has no documented text for.
 */
export const TEXT = {
  invalidKey: 'Invalid API Key',
  rateLimited: 'Max rate limit reached, please use API Key for higher rate limit',
  invalidKeyAttempts: 'Too many invalid api key attempts, please try again later',
  chainId: 'Missing or unsupported chainid parameter (required for v2 api), please see chainlist for the list of supported chainids',
  module: 'Error! Missing Or invalid Module name',
  action: 'Error! Missing Or invalid Action name',
  address: 'Error! Invalid address format',
  contractAddress: 'Error! Invalid contract address format',
  window: 'Result window is too large, PageNo x Offset size must be less than or equal to 10000',
  noClosestBlock: 'Error! No closest block found',
  parameter: 'Error! Invalid parameter',
  // ours
  restricted: 'Error! Restricted access',
  blockType: 'Error! Invalid blocktype',
  page: 'Error! Invalid page number',
  offset: 'Error! Invalid offset',
  sort: 'Error! Invalid sort order',
  blockNumber: 'Error! Invalid block number',
  blockNotFound: 'Error! Block not found',
  historyBeyondIndex: 'Error! Block number beyond the indexed block',
  historyPruned: 'Error! Block number below the kept balance history',
  timestamp: 'Error! Invalid timestamp',
  closest: 'Error! Invalid closest value',
  tag: 'Error! Invalid tag',
  unavailable: 'Error! Service unavailable',
  internal: 'Error! Internal server error',
} as const;

/** The empty-list messages that API sends with status "0" and `result: []`. */
export const EMPTY = {
  records: 'No records found',
  transactions: 'No transactions found',
} as const;

export const ok = <T>(result: T): Envelope<T> => ({ status: '1', message: 'OK', result });

/** A well-formed query that matched nothing: status "0" but an empty list, as that API does. */
export const noRecords = (message: string): Envelope<never[]> => ({ status: '0', message, result: [] });

export const notOk = (result: string): Envelope<string> => ({ status: '0', message: 'NOTOK', result });

/** A refused request; the handler turns it into `{"status":"0","message":"NOTOK","result":text}`. */
export class EtherscanError extends Error {
  override name = 'EtherscanError';
}

/** What the keyed scope's own refusals (HttpError by status) say on these routes. */
function scopeText(error: HttpError, request: FastifyRequest): string | undefined {
  switch (error.statusCode) {
    case 401:
      return TEXT.invalidKey;
    case 403:
      return TEXT.restricted;
    case 404:
      return TEXT.chainId;
    case 429:
      // a key was sent and is no key: the per-address budget for guesses ran out
      return request.apiKey === null && presentedKey(request.query, request.headers) !== null ? TEXT.invalidKeyAttempts : TEXT.rateLimited;
    default:
      return undefined;
  }
}

/**
 * Refusals are HTTP 200 with a NOTOK envelope, as that API answers them (its clients read the
 * body, not the status; metrics count them under the status they stand for,
 * request-metrics.ts); the rate-limit headers stay on the reply. Server-side failures keep
 * their 5xx status so proxies and monitors see them, with an envelope body all the same.
 */
export function etherscanErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const refuse = (status: number, text: string) => {
    request.refusedAs = status;
    return reply.code(200).send(notOk(text));
  };
  if (error instanceof EtherscanError) return refuse(400, error.message);
  const text = error instanceof HttpError ? scopeText(error, request) : undefined;
  if (text !== undefined) return refuse(error.statusCode!, text);
  // the schema validator's or Fastify's own client errors (a query value over the length limit)
  if (error.validation || (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)) {
    return refuse(error.statusCode ?? 400, TEXT.parameter);
  }
  if (error instanceof DatabaseUnavailableError) return replyUnavailable(error, request, reply).send(notOk(TEXT.unavailable));
  request.log.error({ err: error }, 'unhandled error');
  return reply.code(500).send(notOk(TEXT.internal));
}
