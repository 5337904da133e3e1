import { ChainIndexer } from '../../src/indexer/chain-indexer.js';
import type { TransformOptions } from '../../src/indexer/transform.js';

/**
 * The indexer counting no token's transfers: the baseline of `bench:index --transfer-count-cost`
 * (what the counts cost the indexing rate). Its token upsert then updates no known token's row
 * and the reorg window keeps no counts, as before migration 032; the service counts whenever
 * the chain was indexed from genesis.
 */
export class IndexerWithoutTransferCounts extends ChainIndexer {
  protected override transformOptions(head: bigint): TransformOptions {
    return { ...super.transformOptions(head), countTransfers: false };
  }
}
