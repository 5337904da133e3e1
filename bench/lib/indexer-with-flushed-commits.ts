import { ChainIndexer } from '../../src/indexer/chain-indexer.js';

/**
 * The indexer whose backfill waits for the disk at every commit, as before
 * `asyncCommit` (src/db/client.ts): the baseline of `bench:index --async-commit-cost` (what committing
 * the backfill's batches without waiting for their WAL flush gains on PostgreSQL).
 */
export class IndexerWithFlushedCommits extends ChainIndexer {
  protected override backfillCommitsAsync(): boolean {
    return false;
  }
}
