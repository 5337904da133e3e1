/**
 * A batch's transactions refuse a tip the database no longer has (TipMovedError): after a
 * failover to a standby that lacked the last commits, the living indexer's next batch must not
 * commit over the gap. The progress statement checks it, and so does each token part, which
 * commits ahead of its batch (`lockPartMarks`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { recordBatchProgress, refuseUnlessTipIs, TipMovedError, type Continues } from '../../src/db/queries/progress.js';
import { lockPartMarks } from '../../src/db/queries/token-parts.js';
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
  const record = (to: bigint, continues: Continues | undefined) =>
    db.transaction((tx) => recordBatchProgress(tx, CHAIN, { indexed: to, changesFrom: { orKeep: 0n }, historyFrom: null, continues }));
  const after = (block: bigint, orNone = false): Continues => ({ block, orNone });

  it('moves the tip only from the block the batch continues, and says where the tip is otherwise', async () => {
    // the first batch: the writer holds no tip, the database has none
    await expect(record(9n, after(-1n))).rejects.toThrow(TipMovedError);
    expect(await indexed()).toBeNull();
    await record(9n, after(-1n, true));
    expect(await indexed()).toBe('9');
    // a batch written for a tip the database lost (it had said 19)
    const refused = record(29n, after(19n));
    await expect(refused).rejects.toThrow(TipMovedError);
    await expect(refused).rejects.toThrow(/follow block 19, but the database's indexed block is 9/);
    expect(await indexed()).toBe('9');
    // a writer with no tip of its own does not pass over one the database has, other than the block before its batch
    await expect(record(29n, after(19n, true))).rejects.toThrow(TipMovedError);
    await record(19n, after(9n));
    expect(await indexed()).toBe('19');
    // a writer holding a tip refuses a database that has none (a failover that lost every commit)
    await db.query('UPDATE chains SET indexed_block = NULL WHERE chain_id = $1', [CHAIN]);
    await expect(record(29n, after(19n))).rejects.toThrow(/but the database's indexed block is \(none\)/);
    // after a rollback below the start block: the block before the start, which has no row, and no tip held
    await db.query('UPDATE chains SET indexed_block = 19 WHERE chain_id = $1', [CHAIN]);
    await record(25n, after(19n, true));
    expect(await indexed()).toBe('25');
    // unchecked (a test's own batches)
    await record(26n, undefined);
    expect(await indexed()).toBe('26');
  });

  it('refuseUnlessTipIs: the same check, for a statement that does not write the progress', async () => {
    await db.transaction((tx) => refuseUnlessTipIs(tx, CHAIN, after(26n)));
    await db.transaction((tx) => refuseUnlessTipIs(tx, CHAIN, after(26n, true)));
    await expect(db.transaction((tx) => refuseUnlessTipIs(tx, CHAIN, after(25n)))).rejects.toThrow(TipMovedError);
    await expect(db.transaction((tx) => refuseUnlessTipIs(tx, CHAIN, after(25n, true)))).rejects.toThrow(TipMovedError);
  });

  it("lockPartMarks: a part's one statement reads the tip beside the marks", async () => {
    const first = await db.transaction((tx) => lockPartMarks(tx, CHAIN, 0, 26n));
    expect(first).toEqual({ tip: 26n, marks: [] });
    await db.query("UPDATE token_parts SET block_number = 30, block_hash = '\\x0a' WHERE chain_id = $1 AND part = 0", [CHAIN]);
    const ahead = await db.transaction((tx) => lockPartMarks(tx, CHAIN, 1, 26n));
    expect(ahead).toEqual({ tip: 26n, marks: [{ part: 0, block: 30n, hash: '0x0a' }] });
  });
});
