/**
 * A batch's transactions refuse a tip the database no longer has (TipMovedError): after a
 * failover to a standby that lacked the last commits, the living indexer's next batch must not
 * commit over the gap. The progress statement checks it, and so does each token part, which
 * commits ahead of its batch (`lockPartMarks`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { recordBatchProgress, refuseUnlessTipIs, TipMovedError } from '../../src/db/queries/progress.js';
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

  it("lockPartMarks: a part's one statement reads the tip beside the marks", async () => {
    const first = await db.transaction((tx) => lockPartMarks(tx, CHAIN, 0, 26n));
    expect(first).toEqual({ tip: 25n, marks: [] });
    await db.query("UPDATE token_parts SET block_number = 30, block_hash = '\\x0a' WHERE chain_id = $1 AND part = 0", [CHAIN]);
    const ahead = await db.transaction((tx) => lockPartMarks(tx, CHAIN, 1, 26n));
    expect(ahead).toEqual({ tip: 25n, marks: [{ part: 0, block: 30n, hash: '0x0a' }] });
  });
});
