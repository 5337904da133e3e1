import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Registry } from '../registry.js';
import { Nullable } from '../schemas/common.js';

const Health = Type.Object({
  status: Type.String(),
  chains: Type.Array(
    Type.Object({
      chain_id: Type.Integer(),
      indexed_block: Nullable(Type.Integer()),
      head_block: Nullable(Type.Integer()),
      lag: Nullable(Type.Integer({ description: 'head_block − indexed_block' })),
    }),
  ),
});

/** Outside the keyed scope: load balancers and operators poll it. */
export function healthRoute(app: FastifyInstance, registry: Registry): void {
  app.get(
    '/health',
    { schema: { summary: 'Service and indexing status', tags: ['service'], response: { 200: Health } } },
    async () => {
      const chains = await registry.allChains();
      return {
        status: 'ok',
        chains: chains.map((c) => ({
          chain_id: c.chainId,
          indexed_block: c.indexedBlock === null ? null : Number(c.indexedBlock),
          head_block: c.headBlock === null ? null : Number(c.headBlock),
          lag: c.indexedBlock === null || c.headBlock === null ? null : Number(c.headBlock - c.indexedBlock),
        })),
      };
    },
  );
}
