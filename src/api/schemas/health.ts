import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from './common.js';

/** /health's body, with 200 and with 503 (README documents both). */
const Status = Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('unavailable')]);

export const ChainHealth = Type.Object({
  chain_id: Type.Integer(),
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  indexed_block: Nullable(Type.Integer()),
  head_block: Nullable(Type.Integer()),
  lag: Nullable(Type.Integer({ description: 'head_block − indexed_block' })),
  polled_at: Nullable(Type.String({ description: 'when the indexer last reached its node' })),
  reasons: Type.Array(Type.String(), { description: 'why the chain is degraded; empty when ok' }),
  backfilling: Type.Boolean({
    description:
      'indexed for the first time and not yet within the reorg window of the head: its page indexes are built at the hand-over, so until then pages are correct but a large token\'s are slow',
  }),
  parent: Type.Optional(
    Type.Object(
      {
        indexed_block: Nullable(Type.Integer({ description: 'the last parent block whose settlement data are stored' })),
        head_block: Nullable(Type.Integer()),
        lag: Nullable(Type.Integer({ description: 'head_block − indexed_block' })),
        polled_at: Nullable(Type.String({ description: 'when the follower last reached the parent node' })),
        reasons: Type.Array(Type.String(), {
          description: 'why the figures above may be old (the parent node not reached for longer than the health staleness limit); never degrades the chain',
        }),
      },
      { description: 'an Arbitrum chain\'s parent chain, followed for settlement data; its lag never degrades the chain, whose own blocks are served regardless' },
    ),
  ),
});

export const Health = Type.Object({
  status: Status,
  reasons: Type.Array(Type.String()),
  chains: Type.Array(ChainHealth),
});
export type HealthBody = Static<typeof Health>;

/** A load balancer per chain (or per group of chains) asks about those only. */
export const HealthQuery = Type.Object(
  {
    chain_id: Type.Optional(
      Type.String({
        pattern: '^[1-9][0-9]{0,14}(,[1-9][0-9]{0,14}){0,63}$',
        description: 'only these chains, comma-separated (up to 64): 200 when each is served as it should be, 503 otherwise (a chain this database does not index included)',
      }),
    ),
  },
  // (other parameters are ignored: probes add their own)
);
export type HealthQuery = Static<typeof HealthQuery>;

export const chainIdsOf = (list: string | undefined): number[] | null => (list === undefined ? null : [...new Set(list.split(',').map(Number))]);
