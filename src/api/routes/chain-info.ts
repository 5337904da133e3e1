import { readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../../db/client.js';
import { chainStats, firstIndexedBlock } from '../../db/queries/chain-stats.js';
import { ChainParams, errorResponses, KeyOnlyQuery } from '../schemas/common.js';
import { BackendVersion, IndexingStatus, StatsObject } from '../schemas/chain-info.js';
import { indexingStatusView, statsView } from '../views/chain-info.js';

const ChainOnlyParams = Type.Object({ chain_id: ChainParams.properties.chain_id });
type ChainOnlyParams = Static<typeof ChainOnlyParams>;

// (src/api/routes and dist/api/routes are both three levels below the package root)
const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
const BACKEND_VERSION = `${pkg.name} v${pkg.version}`;

/** What every page of the reference's UI asks of the chain: its stats, our version, the indexer's progress. */
export function chainInfoRoutes(app: FastifyInstance, db: Queryable): void {
  const common = { tags: ['chain'], params: ChainOnlyParams, querystring: KeyOnlyQuery };
  type Request = { Params: ChainOnlyParams; Querystring: KeyOnlyQuery };

  app.get<Request>(
    '/:chain_id/api/v2/stats',
    {
      config: { pageCache: true },
      schema: {
        ...common,
        summary: 'Chain statistics from the indexed blocks: block count, block time, utilization, the last 24 hours',
        response: { 200: StatsObject, ...errorResponses },
      },
    },
    async (request) => statsView(request.chain, await chainStats(db, request.chain.chainId)),
  );

  app.get<Request>(
    '/:chain_id/api/v2/config/backend-version',
    { schema: { ...common, summary: 'This server\'s name and version', response: { 200: BackendVersion, ...errorResponses } } },
    async () => ({ backend_version: BACKEND_VERSION }),
  );

  app.get<Request>(
    '/:chain_id/api/v2/main-page/indexing-status',
    {
      schema: {
        ...common,
        summary: 'Whether the indexer has caught up with the head it last saw, and how far it is',
        response: { 200: IndexingStatus, ...errorResponses },
      },
    },
    async (request) => indexingStatusView(request.chain, await firstIndexedBlock(db, request.chain.chainId)),
  );
}
