import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../../../db/client.js';
import type { Action } from './action.js';
import { MAX_PARAMETER_LENGTH } from '../../limits.js';
import { EtherscanError, etherscanErrorHandler } from './envelope.js';
import type { EtherscanQuery } from './params.js';
import { tokenHolderList } from './token-holder-list.js';
import { tokenHolderCount } from './token-holder-count.js';
import { minedBlocks } from './mined-blocks.js';

// Maps, not object literals: a module named "constructor" must not find Object's.
const ACTIONS = new Map<string, Map<string, Action>>([
  ['token', new Map([['tokenholderlist', tokenHolderList], ['tokenholdercount', tokenHolderCount]])],
  ['account', new Map([['getminedblocks', minedBlocks]])],
]);

const text = (description: string) => Type.Optional(Type.String({ maxLength: MAX_PARAMETER_LENGTH, description }));

// Documentation only: every parameter is optional text, checked by the action itself, so a bad
// one is answered the Etherscan way (NOTOK) rather than with a 422. Unknown ones are ignored.
export const EtherscanQuerySchema = Type.Object(
  {
    module: text('token or account'),
    action: text('tokenholderlist, tokenholdercount (token); getminedblocks (account)'),
    contractaddress: text('token address (token module)'),
    address: text('miner address (getminedblocks)'),
    blocktype: text('blocks (default) or uncles'),
    page: text('page number from 1'),
    offset: text('rows per page; page × offset ≤ 10000'),
    apikey: text('API key'),
    key: text('secret key for restricted addresses'),
  },
  { additionalProperties: true },
);

/**
 * `GET /{chain_id}/api?module=…&action=…`, the Etherscan-compatible calls, behind the same keys,
 * limits and restricted list as /api/v2. Conventions of that API kept here:
 * - every refusal is HTTP 200 `{"status":"0","message":"NOTOK","result":"<text>"}`: a missing or
 *   unknown module "Error! Missing Or invalid Module name", action "Error! Missing Or invalid
 *   Action name", a bad address "Error! Invalid address format", a bad contract address "Error!
 *   Invalid contract address format", a missing or wrong key "Invalid API Key", over the limit
 *   "Max rate limit reached";
 * - a query that matches nothing is status "0" with its own message and `result: []`;
 * - offset paging with page × offset ≤ 10,000 ("Result window is too large, …" beyond), so the
 *   OFFSET never walks more than 10,000 index entries.
 * Ours: an unknown chain says "Missing or unsupported chainid parameter" (Etherscan v2's text);
 * a database outage is a 503 with a NOTOK body.
 */
export async function etherscanRoutes(app: FastifyInstance, db: Queryable): Promise<void> {
  await app.register(async (scope) => {
    scope.setErrorHandler(etherscanErrorHandler);
    scope.get<{ Params: { chain_id: string }; Querystring: EtherscanQuery }>(
      '/:chain_id/api',
      {
        schema: {
          summary: 'Etherscan-compatible calls: tokenholderlist, tokenholdercount, getminedblocks',
          tags: ['etherscan'],
          params: Type.Object({ chain_id: Type.String() }),
          querystring: EtherscanQuerySchema,
        },
      },
      async (request) => {
        const { module, action } = request.query;
        const actions = module === undefined ? undefined : ACTIONS.get(module);
        if (!actions) throw new EtherscanError('Error! Missing Or invalid Module name');
        const run = action === undefined ? undefined : actions.get(action);
        if (!run) throw new EtherscanError('Error! Missing Or invalid Action name');
        return run({ db, chainId: request.chain.chainId, query: request.query });
      },
    );
  });
}
