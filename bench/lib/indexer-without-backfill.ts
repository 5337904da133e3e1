import { ChainIndexer } from '../../src/indexer/chain-indexer.js';

/**
 * The indexer without the backfill path: the baseline of `bench:index --backfill-cost` (what
 * the backfill saves). The chain stays in the default partitions, whose page indexes are kept
 * row by row from the first batch on, as every chain was indexed before migration 024.
 */
export class IndexerWithoutBackfill extends ChainIndexer {
  protected override startBackfill(): Promise<boolean> {
    return Promise.resolve(false);
  }
}
