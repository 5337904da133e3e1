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
  /** when the indexer last had an answer from the chain's node: alert on its age, as /health does */
  readonly polledAt: Gauge<'chain_id'>;
  readonly stepFailures: Counter<'chain_id'>;
  /** a rollup's parent chain (chains/: Arbitrum), as its follower last saw and stored it */
  readonly parentHeadBlock: Gauge<'chain_id'>;
  readonly parentIndexedBlock: Gauge<'chain_id'>;
  /** when the follower last had an answer from the parent's node: alert on its age, as /health does */
  readonly parentPolledAt: Gauge<'chain_id'>;
  readonly parentStepFailures: Counter<'chain_id'>;

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
    this.polledAt = new Gauge({ name: 'explorer_last_poll_timestamp_seconds', help: "When the chain's node last answered the indexer's head poll (Unix time)", labelNames, registers });
    this.stepFailures = new Counter({ name: 'explorer_index_step_failures_total', help: 'Indexing steps that failed and were retried', labelNames, registers });
    this.parentHeadBlock = new Gauge({ name: 'explorer_parent_head_block', help: "Parent chain node's head block (rollups)", labelNames, registers });
    this.parentIndexedBlock = new Gauge({ name: 'explorer_parent_indexed_block', help: 'Last parent chain block whose settlement data are stored', labelNames, registers });
    this.parentPolledAt = new Gauge({ name: 'explorer_parent_last_poll_timestamp_seconds', help: "When the parent chain's node last answered the follower (Unix time)", labelNames, registers });
    this.parentStepFailures = new Counter({ name: 'explorer_parent_step_failures_total', help: 'Parent chain steps that failed and were retried', labelNames, registers });
  }
}
