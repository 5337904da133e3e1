import { Counter, Gauge, Registry } from 'prom-client';

/** The indexer's Prometheus series, labelled by chain; served at /metrics. */
export class IndexerMetrics {
  readonly registry: Registry;
  readonly blocks: Counter<'chain_id'>;
  readonly transfers: Counter<'chain_id'>;
  readonly reorgs: Counter<'chain_id'>;
  readonly reconciled: Counter<'chain_id'>;
  readonly indexedBlock: Gauge<'chain_id'>;
  readonly headBlock: Gauge<'chain_id'>;

  constructor(registry = new Registry()) {
    this.registry = registry;
    const labelNames = ['chain_id'] as const;
    const registers = [registry];
    this.blocks = new Counter({ name: 'explorer_indexed_blocks_total', help: 'Blocks written', labelNames, registers });
    this.transfers = new Counter({ name: 'explorer_indexed_transfers_total', help: 'Token transfers applied', labelNames, registers });
    this.reorgs = new Counter({ name: 'explorer_reorgs_total', help: 'Reorganisations rolled back', labelNames, registers });
    this.reconciled = new Counter({ name: 'explorer_reconciled_balances_total', help: 'Balances reset from balanceOf', labelNames, registers });
    this.indexedBlock = new Gauge({ name: 'explorer_indexed_block', help: 'Last fully indexed block', labelNames, registers });
    this.headBlock = new Gauge({ name: 'explorer_head_block', help: 'Node head block', labelNames, registers });
  }
}
