import { ChainIndexer } from '../../src/indexer/chain-indexer.js';
import type { TransformOptions } from '../../src/indexer/transform.js';

/**
 * The indexer writing no balance history: the baseline of `bench:index --history-cost` (what
 * the history costs the indexing rate). No per-block changes are built outside the reorg window
 * and the balance write has no history part, so answers at a past block would be wrong: the
 * service has no such setting (`--history-from-block` bounds the history instead).
 */
export class IndexerWithoutHistory extends ChainIndexer {
  protected override transformOptions(head: bigint): TransformOptions {
    return { ...super.transformOptions(head), keepHistory: false };
  }
}
