import type { Database } from '../../../db/client.js';
import type { Hex } from '../../../db/rows.js';
import type { Envelope } from './envelope.js';
import type { EtherscanQuery } from './params.js';

export interface ActionContext {
  db: Database;
  chainId: number;
  /** the query, every name lowercased */
  query: EtherscanQuery;
  /** the restricted addresses a list must leave out for this request (chain-scope.ts) */
  hidden(): Promise<Hex[]>;
}

/** One `module`/`action` pair of that API that our data answers. */
export interface EtherscanAction {
  module: string;
  action: string;
  /** what it answers, for README and the OpenAPI document */
  summary: string;
  /**
   * The parameters it reads besides module, action, chainid and the key: name → description.
   * These names are the ones a log line may show (src/api/redact.ts).
   */
  parameters: Readonly<Record<string, string>>;
  /** a successful envelope, or an EtherscanError thrown */
  run(context: ActionContext): Promise<Envelope>;
}
