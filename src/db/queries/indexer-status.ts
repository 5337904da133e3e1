import type { Queryable } from '../client.js';

/** What kind of fault stopped an indexing step; shown by /health, so never an error message. */
export type IndexerFailure = 'rpc' | 'database' | 'disk-full' | 'settings' | 'internal' | 'stopped';

/** Records a failed step; `failing_since` keeps the first failure of a run of them. */
export async function recordIndexerFailure(db: Queryable, chainId: number, failure: IndexerFailure): Promise<void> {
  await db.query(
    'UPDATE chains SET failing_since = COALESCE(failing_since, now()), failed_at = now(), failure = $2 WHERE chain_id = $1',
    [chainId, failure],
  );
}

/** A step succeeded: the chain is no longer failing. */
export async function clearIndexerFailure(db: Queryable, chainId: number): Promise<void> {
  await db.query('UPDATE chains SET failing_since = NULL, failure = NULL WHERE chain_id = $1 AND failing_since IS NOT NULL', [chainId]);
}
