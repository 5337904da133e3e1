/**
 * The block model (src/db/model/block.ts) is the one definition of a block's columns: it must
 * match the table the migrations build, and blocks stored before it (with their Arbitrum fields
 * in a column of their own) must read the same after the upgrade.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { blockTableColumns } from '../../src/db/model/block.js';
import { blocksValidatedPage } from '../../src/db/queries/blocks.js';
import { availableEngines, databaseBefore, freshDatabase } from '../support/databases.js';
import { addressOf } from '../support/seed.js';

describe.each(await availableEngines())('the block model on %s', (engine) => {
  const opened: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const close of opened) await close();
  });

  it('names exactly the columns of the blocks table', async () => {
    const { db, drop } = await freshDatabase(engine);
    opened.push(drop);
    const rows = await db.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_name = 'blocks' AND table_schema = current_schema()`,
    );
    expect(rows.map((r) => r.column_name).sort()).toEqual(Object.values(blockTableColumns).map((c) => c.name).sort());
  });

  it('reads an Arbitrum block stored before migration 006 with the same header fields', async () => {
    const { db, close } = await databaseBefore(engine, '006_block_chain_fields');
    opened.push(close);
    const miner = addressOf(1, 'sequencer');
    const old = {
      batch_number: null, status: null, batch_data_container: null, commitment_transaction: null, confirmation_transaction: null,
      delayed_messages: 1_789_671, l1_block_number: 9_011_968, send_count: 108_516, send_root: '0x724a',
    };
    await db.query(
      `INSERT INTO blocks (chain_id, hash, number, parent_hash, nonce, timestamp, miner, size, difficulty, gas_limit, gas_used,
         burnt_fees, priority_fee, transaction_fees, transactions_count, arbitrum)
       VALUES (421614, '\\x01', 7, '\\x00', '\\x00000000001b4ee7', 1700000000, $1, 100, 1, 100, 50, 0, 0, 0, 1, $2::jsonb),
              (1, '\\x02', 8, '\\x01', '\\x0000000000000000', 1700000012, $1, 100, 0, 100, 50, 0, 0, 0, 1, NULL)`,
      [Buffer.from(miner.slice(2), 'hex'), JSON.stringify(old)],
    );
    await migrate(db);
    const [arbitrumBlock] = (await blocksValidatedPage(db, { chainId: 421614, miner, beforeNumber: null, limit: 5 })).items;
    expect(arbitrumBlock!.chainFields).toEqual({
      arbitrum: { delayed_messages: 1_789_671, l1_block_number: 9_011_968, send_count: 108_516, send_root: '0x724a' },
    });
    const [plainBlock] = (await blocksValidatedPage(db, { chainId: 1, miner, beforeNumber: null, limit: 5 })).items;
    expect(plainBlock!.chainFields).toBeNull();
  });
});
