/**
 * A statement that selects a column cast to text under its own name (`number::text`) and orders
 * by that bare name orders by the text: 10 before 9. The SaaS review found it in the admin key
 * list (half the keys never listed once ids passed a page); the same pattern was in the parent
 * chain's checkpoints, the blob-fields backfill and the restricted list. Each is read here
 * across a digit boundary, on both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { checkpointsBelow } from '../../src/chains/arbitrum/store.js';
import { blocksWithoutBlobFields } from '../../src/db/queries/blob-backfill.js';
import { addRestrictedAddress, listRestrictedAddresses } from '../../src/db/queries/restricted.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { upsertBlocks } from '../../src/db/queries/write-blocks.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { addressOf, blockRow } from '../support/seed.js';

const CHAIN = 5;
const NUMBERS = [8, 9, 10, 11, 99, 100];

describe.each(await availableEngines())('lists ordered by number, not by its text, on %s', (engine) => {
  let db: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await freshDatabase(engine));
    await ensureChain(db, CHAIN);
  });
  afterAll(() => drop?.());

  it("the parent chain's checkpoints, newest first", async () => {
    for (const n of NUMBERS) {
      await db.query('INSERT INTO arbitrum_parent_checkpoints (chain_id, number, hash) VALUES ($1, $2, $3)', [CHAIN, n, Buffer.alloc(32, n)]);
    }
    expect((await checkpointsBelow(db, CHAIN, 100n, 3)).map((c) => c.number)).toEqual([100n, 99n, 11n]);
    expect((await checkpointsBelow(db, CHAIN, 10n, 2)).map((c) => c.number)).toEqual([10n, 9n]);
  });

  it('the blocks still without blob fields, newest first, page by page', async () => {
    const miner = addressOf(1, 'order-miner');
    await upsertBlocks(db, NUMBERS.map((n) => blockRow(CHAIN, n, miner)));
    await db.query('UPDATE blocks SET blob_transactions_count = NULL WHERE chain_id = $1', [CHAIN]);
    const walked: bigint[] = [];
    let below: bigint | null = null;
    for (let page = 0; page < 10; page++) {
      const rows = await blocksWithoutBlobFields(db, CHAIN, below, 2);
      if (rows.length === 0) break;
      walked.push(...rows.map((r) => r.number));
      below = rows.at(-1)!.number;
    }
    expect(walked).toEqual([...NUMBERS].reverse().map(BigInt));
  });

  it('the restricted addresses, by chain id', async () => {
    const address = addressOf(2, 'order-restricted');
    for (const chainId of [9, 10, 100]) await addRestrictedAddress(db, address, chainId);
    expect((await listRestrictedAddresses(db)).map((r) => r.chainId)).toEqual([9, 10, 100]);
  });
});
