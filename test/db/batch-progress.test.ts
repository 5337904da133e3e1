/**
 * A batch's progress refuses a tip the database no longer has (TipMovedError): after a crash of
 * the database server took the backfill's last commits (`asyncCommit` in src/db/client.ts), the living
 * indexer's next batch must not commit over the gap. The whole indexer under such a crash:
 * test/indexer/postgres-server-crash.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { recordBatchProgress, refuseUnlessTipIs, TipMovedError } from '../../src/db/queries/progress.js';
import { availableEngines, freshDatabase } from '../support/databases.js';

const CHAIN = 5;

describe.each(await availableEngines())('batch progress on %s', (engine) => {
  let db: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await freshDatabase(engine));
    await ensureChain(db, CHAIN);
  });
  afterAll(async () => drop());

  const indexed = async () => (await db.query<{ n: string | null }>('SELECT indexed_block::text AS n FROM chains WHERE chain_id = $1', [CHAIN]))[0]!.n;
  const record = (to: bigint, continues: bigint | null | undefined) =>
    db.transaction((tx) => recordBatchProgress(tx, CHAIN, { indexed: to, changesFrom: { orKeep: 0n }, historyFrom: null, continues }));

  it('moves the tip only from the block the batch continues, and says where the tip is otherwise', async () => {
    // the first batch continues no block
    await expect(record(9n, 5n)).rejects.toThrow(TipMovedError);
    expect(await indexed()).toBeNull();
    await record(9n, null);
    expect(await indexed()).toBe('9');
    // a batch written for a tip the database lost (it had said 19)
    const refused = record(29n, 19n);
    await expect(refused).rejects.toThrow(TipMovedError);
    await expect(refused).rejects.toThrow(/follow block 19, but the database's indexed block is 9/);
    expect(await indexed()).toBe('9');
    await record(19n, 9n);
    expect(await indexed()).toBe('19');
    // unchecked (a test's own batches)
    await record(25n, undefined);
    expect(await indexed()).toBe('25');
  });

  it('refuseUnlessTipIs: the check a token part makes before it commits ahead of its batch', async () => {
    await db.transaction((tx) => refuseUnlessTipIs(tx, CHAIN, 25n));
    await expect(db.transaction((tx) => refuseUnlessTipIs(tx, CHAIN, 24n))).rejects.toThrow(TipMovedError);
    await expect(db.transaction((tx) => refuseUnlessTipIs(tx, CHAIN, null))).rejects.toThrow(TipMovedError);
  });
});
