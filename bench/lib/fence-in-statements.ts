import type { Database, Queryable } from '../../src/db/client.js';

/**
 * The writer lock's fence as it was before the twenty-first session: the lease and the token
 * check as statements of their own in each transaction, two round trips more than the fence
 * sent with the BEGIN and the COMMIT (src/indexer/writer-lock.ts `fenced`). The baseline of
 * `bench:index --fence-cost`, over a database whose chain row holds the writer's token (the
 * writer lock taken).
 */
export async function fenceInStatements(db: Database, chainId: number, leaseMs: number): Promise<Database> {
  const [row] = await db.query<{ writer: string }>('SELECT writer FROM chains WHERE chain_id = $1', [chainId]);
  const token = row!.writer;
  const fence = async (tx: Queryable) => {
    const rows = await tx.query('UPDATE chains SET writer = writer WHERE chain_id = $1 AND writer = $2 RETURNING 1', [chainId, token]);
    if (rows.length === 0) throw new Error(`chain ${chainId}: the writer token is gone`);
  };
  return {
    ...db,
    transaction: (fn) =>
      db.transaction(async (tx) => {
        await tx.query(`SELECT set_config('idle_in_transaction_session_timeout', $1, true)`, [String(leaseMs)]);
        const result = await fn(tx);
        await fence(tx);
        return result;
      }),
  };
}
