/**
 * Migration 024 partitions token_balances and balance_intervals by chain: an upgraded database
 * keeps its rows where they were (the DEFAULT partitions, with their indexes' names), serves them
 * as before, and leaves a chain that already has rows there; a chain with none starts a backfill
 * in partitions of its own, which get every index of the default partitions once it finishes,
 * each committed on its own (a hand-over cut short keeps what it built and finishes later).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { heldSupply } from '../../src/db/queries/token-supply.js';
import { finishBackfill, partitionState, startBackfill } from '../../src/db/chain-partitions.js';
import { holdersPage } from '../../src/db/queries/holders.js';
import { applyBlockChanges } from '../../src/db/queries/write-balances.js';
import { BalanceSum } from '../../src/indexer/balance-sum.js';
import type { Database, Queryable } from '../../src/db/client.js';
import { listChains } from '../../src/db/queries/chains.js';
import { availableEngines, databaseBefore, indexesOn } from '../support/databases.js';
import { addressOf } from '../support/seed.js';

const OLD_CHAIN = 7;
const NEW_CHAIN = 8;
const TOKEN = addressOf(0, 'partition-token');
const [A, B] = [1, 2].map((i) => addressOf(i, 'partition-holder')) as [`0x${string}`, `0x${string}`];

const tableOf = async (db: Database, chainId: number) =>
  (await db.query<{ t: string }>('SELECT DISTINCT tableoid::regclass::text AS t FROM token_balances WHERE chain_id = $1', [chainId])).map((r) => r.t);
describe.each(await availableEngines())('migration 024 (balances by chain) on %s', (engine) => {
  const opened: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const close of opened) await close();
  });

  it('keeps an upgraded chain in the default partitions and gives a new chain its own', async () => {
    const { db, close } = await databaseBefore(engine, '024_balances_by_chain');
    opened.push(close);
    for (const chainId of [OLD_CHAIN, NEW_CHAIN]) {
      await db.query('INSERT INTO chains (chain_id, indexed_block) VALUES ($1, 5)', [chainId]);
      await db.query(`INSERT INTO tokens (chain_id, address, type, first_block) VALUES ($1, $2, 'ERC-20', 1)`, [chainId, Buffer.from(TOKEN.slice(2), 'hex')]);
    }
    // the rows as that schema's balance write left them (today's statement needs later columns):
    // A got 5 at block 1 and 2 more at block 2, B 9 at block 2
    const bytes = (hex: string) => Buffer.from(hex.slice(2), 'hex');
    await db.query(
      `INSERT INTO token_balances (chain_id, token, holder, token_id, value, block_number, prev_block)
       VALUES ($1, $2, $3, NULL, 7, 2, 1), ($1, $2, $4, NULL, 9, 2, NULL)`,
      [OLD_CHAIN, bytes(TOKEN), bytes(A), bytes(B)],
    );
    await db.query(
      `INSERT INTO balance_intervals (chain_id, token, holder, token_id, value, from_block, to_block) VALUES ($1, $2, $3, NULL, 5, 1, 2)`,
      [OLD_CHAIN, bytes(TOKEN), bytes(A)],
    );
    await db.query('UPDATE tokens SET holder_count = 2 WHERE chain_id = $1', [OLD_CHAIN]);
    const before = await indexesOn(db, 'token_balances');
    await migrate(db);

    const page = await holdersPage(db, { chainId: OLD_CHAIN, token: TOKEN, after: null, limit: 10 });
    expect(page.holders.map((h) => [h.address.hash, h.value])).toEqual([[B, 9n], [A, 7n]]);
    // migration 025 added up the balances the database held
    expect(await heldSupply(db, OLD_CHAIN, TOKEN)).toBe(16n);
    expect(await tableOf(db, OLD_CHAIN)).toEqual(['token_balances_default']);
    // the page indexes kept their names, on the table that kept the rows; the key is the parent's
    // (less the index a later migration added: 030's token_balances_by_id)
    const kept = (await indexesOn(db, 'token_balances_default')).filter((n) => n !== 'token_balances_by_id');
    expect(kept).toEqual(before.filter((n) => n !== 'token_balances_key').concat('token_balances_default_key').sort());
    expect(await startBackfill(db, OLD_CHAIN)).toBe('default');

    expect(await startBackfill(db, NEW_CHAIN)).toBe('backfilling');
    await applyBlockChanges(db, NEW_CHAIN, BalanceSum.of([{ token: TOKEN, holder: A, tokenId: null, delta: 4n, blockNumber: 3n }]).changed());
    expect(await tableOf(db, NEW_CHAIN)).toEqual([`token_balances_${NEW_CHAIN}`]);
    expect(await indexesOn(db, `token_balances_${NEW_CHAIN}`)).toHaveLength(1); // the key alone
    expect(await indexesOn(db, `balance_intervals_${NEW_CHAIN}`)).toEqual([]);
    expect(await startBackfill(db, NEW_CHAIN)).toBe('backfilling');

    // a hand-over cut short (a kill, a lost connection) after its first index: each index commits
    // on its own, so what was built stays, the chain is still backfilling (and /health says so:
    // the holders page index is built last), and the next call builds the rest
    let statements = 0;
    const cut: Queryable = {
      query: (text, params) => {
        if (/^CREATE INDEX/.test(text) && ++statements === 2) return Promise.reject(new Error('connection lost'));
        return db.query(text, params);
      },
    };
    await expect(finishBackfill(cut, NEW_CHAIN)).rejects.toThrow('connection lost');
    expect(await partitionState(db, NEW_CHAIN)).toBe('backfilling');
    expect((await listChains(db)).find((c) => c.chainId === NEW_CHAIN)?.backfilling).toBe(true);
    expect(await indexesOn(db, `token_balances_${NEW_CHAIN}`)).toHaveLength(2); // the key and one copy
    await finishBackfill(db, NEW_CHAIN);
    expect(await partitionState(db, NEW_CHAIN)).toBe('indexed');
    expect((await listChains(db)).find((c) => c.chainId === NEW_CHAIN)?.backfilling).toBe(false);
    for (const table of ['token_balances', 'balance_intervals']) {
      const copies = (await indexesOn(db, `${table}_${NEW_CHAIN}`)).filter((n) => !n.endsWith('_token_id_key'));
      const originals = (await indexesOn(db, `${table}_default`)).filter((n) => n !== 'token_balances_default_key');
      expect(copies).toEqual(originals.map((n) => n.replace(`${table}_`, `${table}_${NEW_CHAIN}_`)).sort());
    }
    // an index missing (dropped by hand) is a backfill to finish: built again, alone
    await db.query(`DROP INDEX token_balances_${NEW_CHAIN}_page`);
    expect(await partitionState(db, NEW_CHAIN)).toBe('backfilling');
    await finishBackfill(db, NEW_CHAIN);
    expect(await partitionState(db, NEW_CHAIN)).toBe('indexed');
    const served = await holdersPage(db, { chainId: NEW_CHAIN, token: TOKEN, after: null, limit: 10 });
    expect(served.holders.map((h) => [h.address.hash, h.value])).toEqual([[A, 4n]]);
  });
});
