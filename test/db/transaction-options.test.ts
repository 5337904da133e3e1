/**
 * Statements sent with a transaction's BEGIN and COMMIT (TransactionOptions), which the writer
 * lock's lease and fence ride on (src/indexer/writer-lock.ts): they run inside the transaction,
 * and one raising before the COMMIT leaves nothing committed and the connection usable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { availableEngines, freshDatabase } from '../support/databases.js';

describe.each(await availableEngines())('transaction options on %s', (engine) => {
  let db: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await freshDatabase(engine));
    await db.exec('CREATE TABLE t (n int)');
  });
  afterAll(async () => drop());

  const rows = async () => (await db.query<{ n: number }>('SELECT n FROM t ORDER BY n')).map((r) => r.n);

  it('runs afterBegin inside the transaction and beforeCommit before its COMMIT', async () => {
    const seen = await db.transaction(
      async (tx) => {
        await tx.query('INSERT INTO t VALUES (1)');
        return (await tx.query<{ v: string }>("SELECT current_setting('idle_in_transaction_session_timeout') AS v"))[0]!.v;
      },
      { afterBegin: 'SET LOCAL idle_in_transaction_session_timeout = 4321', beforeCommit: 'INSERT INTO t VALUES (2)' },
    );
    expect(seen).toBe('4321ms');
    expect(await rows()).toEqual([1, 2]);
    // SET LOCAL: gone with the transaction
    expect((await db.query<{ v: string }>("SELECT current_setting('idle_in_transaction_session_timeout') AS v"))[0]!.v).not.toBe('4321ms');
  });

  it('commits nothing when beforeCommit raises, and the next transaction goes through', async () => {
    const refused = db.transaction((tx) => tx.query('INSERT INTO t VALUES (3)'), {
      beforeCommit: `DO $x$ BEGIN RAISE EXCEPTION 'refused' USING ERRCODE = 'XW001'; END $x$`,
    });
    await expect(refused).rejects.toMatchObject({ code: 'XW001' });
    expect(await rows()).toEqual([1, 2]);
    // on PostgreSQL the pool's connections are all reused here (one at a time): none was left in a transaction
    for (let i = 4; i < 16; i++) await db.transaction((tx) => tx.query(`INSERT INTO t VALUES (${i})`));
    expect((await rows()).length).toBe(14);
  });
});
