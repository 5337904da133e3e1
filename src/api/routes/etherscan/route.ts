import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Database } from '../../../db/client.js';
import { queryChainId, type RestrictedInLists } from '../../plugins/chain-scope.js';
import { MAX_PARAMETER_LENGTH } from '../../limits.js';
import { ACTIONS, findAction } from './actions.js';
import { EtherscanError, etherscanErrorHandler, TEXT } from './envelope.js';
import type { EtherscanQuery } from './params.js';

const text = (description: string) => Type.Optional(Type.String({ maxLength: MAX_PARAMETER_LENGTH, description }));

/** Each parameter any action reads, with every description it was given. */
function actionParameters(): Record<string, string> {
  const described = new Map<string, Set<string>>();
  for (const a of ACTIONS) {
    for (const [name, description] of Object.entries(a.parameters)) {
      described.set(name, (described.get(name) ?? new Set()).add(`${description} (${a.action})`));
    }
  }
  return Object.fromEntries([...described].map(([name, texts]) => [name, [...texts].join('; ')]));
}

// Documentation only: every parameter is optional text, checked by the action itself, so a bad
// one is answered the Etherscan way (NOTOK) rather than with a 422. Unknown ones are ignored.
// Its names are also the ones a log line may show (src/api/redact.ts).
export const EtherscanQuerySchema = Type.Object(
  {
    module: text('account, token, stats or block (any letter case)'),
    action: text(ACTIONS.map((a) => a.action).join(', ')),
    chainid: text('the chain (on /v2/api and /api; on /{chain_id}/api it must match the path when sent)'),
    chain_id: text('the chain, as the hosted explorer\'s PRO API names it: the same as chainid (both sent must agree)'),
    ...Object.fromEntries(Object.entries(actionParameters()).map(([name, description]) => [name, text(description)])),
    apikey: text('API key (the name in any letter case, e.g. apiKey)'),
    key: text('secret key for restricted addresses'),
  },
  { additionalProperties: true },
);

/** The three ways that API's URLs name the chain: the path, or `chainid` in the query. */
const ROUTES = ['/:chain_id/api', '/v2/api', '/api'] as const;

/**
 * The Etherscan-compatible calls, behind the same keys, limits, page cache and restricted list
 * as /api/v2, on each URL form that API's clients use: `/{chain_id}/api?module=…` (this
 * server's), `/v2/api?chainid=N&module=…` (that API's V2) and `/api?chainid=N&module=…` (V1
 * clients given a chain id). Conventions (README "Etherscan-style calls", docs/ETHERSCAN.md):
 * parameter names in any letter case (query-names.ts), every refusal HTTP 200
 * `{"status":"0","message":"NOTOK","result":"<text>"}` with that API's texts, a query that
 * matches nothing status "0" with `result: []`, numbers as decimal strings.
 */
export async function etherscanRoutes(app: FastifyInstance, db: Database, restrictedInLists: RestrictedInLists): Promise<void> {
  await app.register(async (scope) => {
    scope.setErrorHandler(etherscanErrorHandler);
    // (each form with a trailing slash too, `…/api/?module=…` as some clients build it: the
    // router ignores trailing slashes, server.ts)
    for (const url of ROUTES) {
      scope.get<{ Querystring: EtherscanQuery }>(
        url,
        {
          config: { etherscan: true, pageCache: true },
          schema: {
            summary: `Etherscan-compatible calls: ${ACTIONS.map((a) => a.action).join(', ')}`,
            tags: ['etherscan'],
            ...(url.startsWith('/:chain_id/') ? { params: Type.Object({ chain_id: Type.String() }) } : {}),
            querystring: EtherscanQuerySchema,
          },
        },
        async (request) => {
          const query = request.query;
          checkChainId(request);
          const lookup = findAction(query.module, query.action);
          if ('unknown' in lookup) throw new EtherscanError(lookup.unknown === 'module' ? TEXT.module : TEXT.action);
          return lookup.found.run({ db, chainId: request.chain.chainId, query, hidden: () => restrictedInLists(request) });
        },
      );
    }
  });
}

/** On /{chain_id}/api a `chainid` sent too must name the same chain: a script must not read another chain's data unawares. */
function checkChainId(request: FastifyRequest): void {
  const query = request.query as EtherscanQuery;
  const sent = queryChainId(query);
  const given = query.chainid !== undefined || query.chain_id !== undefined;
  if (given && sent !== String(request.chain.chainId)) throw new EtherscanError(TEXT.chainId);
}
