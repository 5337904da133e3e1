import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../../db/client.js';
import { firstIndexedBlock } from '../../db/queries/progress.js';
import { DayTotals } from '../day-totals.js';
import { ChainOnlyParams, KeyOnlyQuery } from '../schemas/common.js';
import { BackendVersion, IndexingStatus, StatsObject } from '../schemas/chain-info.js';
import { indexingStatusView, statsView } from '../views/chain-info.js';
import { getRoutes } from './get-route.js';

// (src/api/routes and dist/api/routes are both three levels below the package root)
const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
const BACKEND_VERSION = `${pkg.name} v${pkg.version}`;

/** What every page of the reference's UI asks of the chain: its stats, our version, the indexer's progress. */
export function chainInfoRoutes(app: FastifyInstance, db: Queryable): void {
  // per server: the day's sums move with the indexed tip, not recomputed per request
  const stats = new DayTotals(db);
  const get = getRoutes(app, { tags: ['chain'], params: ChainOnlyParams, querystring: KeyOnlyQuery });

  get(
    '/:chain_id/api/v2/stats',
    {
      summary: 'Chain statistics from the indexed blocks: block count, block time, utilization, the last 24 hours',
      response: StatsObject,
      pageCache: true,
    },
    async (request) => statsView(request.chain, await stats.stats(request.chain.chainId)),
  );

  get('/:chain_id/api/v2/config/backend-version', { summary: 'This server\'s name and version', response: BackendVersion }, () => ({
    backend_version: BACKEND_VERSION,
  }));

  get(
    '/:chain_id/api/v2/main-page/indexing-status',
    { summary: 'Whether the indexer has caught up with the head it last saw, and how far it is', response: IndexingStatus },
    async (request) => indexingStatusView(request.chain, await firstIndexedBlock(db, request.chain.chainId)),
  );
}
