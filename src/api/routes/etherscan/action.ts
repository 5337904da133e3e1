import type { Queryable } from '../../../db/client.js';
import type { Envelope } from './envelope.js';
import type { EtherscanQuery } from './params.js';

export interface ActionContext {
  db: Queryable;
  chainId: number;
  query: EtherscanQuery;
}

/** One `module`/`action` pair: a successful envelope, or an EtherscanError thrown. */
export type Action = (context: ActionContext) => Promise<Envelope>;
