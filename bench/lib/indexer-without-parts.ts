import { ChainIndexer } from '../../src/indexer/chain-indexer.js';

/**
 * The indexer whose backfill writes each batch in one transaction, as before the token parts
 * (src/indexer/write-parts.ts): the baseline of `bench:index --parts-cost` (what writing a
 * batch's tokens on two connections at once gains).
 */
export class IndexerWithoutParts extends ChainIndexer {
  protected override backfillInParts(): boolean {
    return false;
  }
}
