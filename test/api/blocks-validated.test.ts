import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureChain } from '../../src/db/queries/chains.js';
import { upsertBlocks } from '../../src/db/queries/write-blocks.js';
import { availableEngines } from '../support/databases.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { addressOf, blockRow, hashOf } from '../support/seed.js';
import { assertWire, blocksPageSchema } from './wire-schema.js';
import { fixtureResult } from '../support/replay-rpc.js';
import { chainFieldsOf } from '../../src/chains/index.js';
import type { RpcBlock } from '../../src/rpc/types.js';

const CHAIN = 10;
const MINER = addressOf(1, 'miner');
const OTHER = addressOf(2, 'miner');
const EMPTY_MINER = addressOf(3, 'miner');
const SEQUENCER = addressOf(4, 'miner');
// a real Arbitrum Sepolia header: its kind's fields as the indexer stores them
const arbitrumHeader = fixtureResult<RpcBlock>('arbitrum-sepolia/block-185232421.eth_getBlockByNumber.full.json');

describe.each(await availableEngines())('blocks-validated on %s', (engine) => {
  let api: TestApi;
  const validated = (address: string, query: Record<string, string | number> = {}) =>
    api.get(`/${CHAIN}/api/v2/addresses/${address}/blocks-validated`, query);

  beforeAll(async () => {
    api = await startTestApi(engine);
    await ensureChain(api.db, CHAIN, 2);
    // blocks 1..102: MINER mines the odd ones (51 blocks), OTHER the even ones
    await upsertBlocks(
      api.db,
      Array.from({ length: 102 }, (_, i) => blockRow(CHAIN, i + 1, (i + 1) % 2 === 1 ? MINER : OTHER)),
    );
    // a block orphaned by a reorg and an empty pre-London block with a PoW reward
    await upsertBlocks(api.db, [
      blockRow(CHAIN, 200, EMPTY_MINER, { hash: hashOf(200, 'orphan'), consensus: false }),
      blockRow(CHAIN, 201, EMPTY_MINER, {
        baseFeePerGas: null, burntFees: 0n, priorityFee: 0n, transactionFees: 0n, transactionsCount: 0,
        gasUsed: 0n, totalDifficulty: null, withdrawalsCount: null, internalTransactionsCount: 0,
        blobGasUsed: null, excessBlobGas: null, blobTransactionsCount: 0,
        rewards: [{ reward: 5n * 10n ** 18n, type: 'Miner Reward', address: EMPTY_MINER }],
        uncleHashes: [hashOf(1, 'uncle')],
      }),
      blockRow(CHAIN, 300, SEQUENCER, { chainFields: chainFieldsOf(arbitrumHeader) }),
    ]);
  });
  afterAll(() => api?.close());

  it('only the address\'s own blocks, newest first, 50 + 1', async () => {
    const first = await validated(MINER);
    assertWire(blocksPageSchema, first.body);
    expect(first.body.items).toHaveLength(50);
    const heights = first.body.items.map((b: any) => b.height);
    expect(heights[0]).toBe(101);
    expect(heights.every((h: number) => h % 2 === 1)).toBe(true);
    expect(heights).toEqual([...heights].sort((a, b) => b - a));
    expect(first.body.items.every((b: any) => b.miner.hash.toLowerCase() === MINER)).toBe(true);
    expect(first.body.next_page_params).toEqual({ block_number: 3, items_count: 50 });
    const second = await validated(MINER, first.body.next_page_params);
    assertWire(blocksPageSchema, second.body);
    expect(second.body.items.map((b: any) => b.height)).toEqual([1]);
    expect(second.body.next_page_params).toBeNull();
  });

  it('items_count sets the page size; block_number pages strictly below', async () => {
    const res = await validated(OTHER, { items_count: 4, block_number: 50 });
    expect(res.body.items.map((b: any) => b.height)).toEqual([48, 46, 44, 42]);
    expect(res.body.next_page_params).toEqual({ block_number: 42, items_count: 4 });
    const withKey = await validated(OTHER, { items_count: 1, key: 'k1' });
    expect(withKey.body.next_page_params).toEqual({ block_number: 102, items_count: 1, key: 'k1' });
  });

  it('a height with a block and its orphans by one miner never straddles two pages: every row once, at every page size', async () => {
    const TIED = addressOf(5, 'miner');
    // heights 400..419 mined by TIED; orphans beside the consensus block at every third height,
    // and at 410 five of them (more than a page reads past its size)
    const rows = Array.from({ length: 20 }, (_, i) => blockRow(CHAIN, 400 + i, TIED));
    for (const height of [401, 404, 407, 413, 416, 419]) rows.push(blockRow(CHAIN, height, TIED, { hash: hashOf(height, 'tied-orphan'), consensus: false }));
    for (let k = 0; k < 5; k++) rows.push(blockRow(CHAIN, 410, TIED, { hash: hashOf(410 + k * 1000, 'tied-many'), consensus: false }));
    await upsertBlocks(api.db, rows);
    const all = rows.map((r) => r.hash).sort();
    for (const size of [1, 2, 3, 4, 5, 7, 50]) {
      const seen: string[] = [];
      let query: Record<string, string | number> = { items_count: size };
      for (let pages = 0; pages < 100; pages++) {
        const res = await validated(TIED, query);
        expect(res.status).toBe(200);
        const items = res.body.items as Array<{ hash: string; height: number }>;
        seen.push(...items.map((b) => b.hash));
        // a page ends on a whole height: more than items_count only to finish it
        if (items.length > size) expect(new Set(items.slice(size - 1).map((b) => b.height)).size, `size ${size}`).toBe(1);
        if (res.body.next_page_params === null) break;
        query = res.body.next_page_params;
      }
      expect(seen.sort(), `size ${size}`).toEqual(all);
    }
  });

  it('unknown address: empty 200, not 404', async () => {
    const res = await validated(addressOf(999, 'nobody'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [], next_page_params: null });
  });

  it('block fields follow the formulas from the stored values', async () => {
    const res = await validated(MINER, { items_count: 1 });
    const b = res.body.items[0];
    const row = blockRow(CHAIN, 101, MINER);
    expect(b).toMatchObject({
      hash: row.hash,
      parent_hash: row.parentHash,
      nonce: '0x0000000000000000',
      type: 'block',
      timestamp: new Date(Number(row.timestamp) * 1000).toISOString().replace('.000Z', '.000000Z'),
      gas_limit: row.gasLimit.toString(),
      gas_used: row.gasUsed.toString(),
      base_fee_per_gas: row.baseFeePerGas!.toString(),
      burnt_fees: row.burntFees.toString(),
      priority_fee: row.priorityFee.toString(),
      transaction_fees: row.transactionFees.toString(),
      total_difficulty: row.totalDifficulty!.toString(),
      transactions_count: 10,
      withdrawals_count: 16,
      is_pending_update: false,
      uncles_hashes: [],
      blob_gas_used: row.blobGasUsed!.toString(),
      excess_blob_gas: row.excessBlobGas!.toString(),
      blob_transactions_count: row.blobTransactionsCount,
      blob_transaction_count: row.blobTransactionsCount,
    });
    const used = Number(row.gasUsed);
    const limit = Number(row.gasLimit);
    expect(b.gas_used_percentage).toBeCloseTo((used / limit) * 100, 9);
    expect(b.gas_target_percentage).toBeCloseTo((used / (limit / 2) - 1) * 100, 9);
    expect(b.burnt_fees_percentage).toBeCloseTo((Number(row.burntFees) / Number(row.transactionFees)) * 100, 9);
    expect(b.rewards).toEqual([{ reward: row.priorityFee.toString(), type: 'validator', address_hash: b.miner.hash }]);
    expect(b).not.toHaveProperty('arbitrum');
  });

  it('orphaned blocks are listed as reorg; pre-London and empty blocks have null/zero fees', async () => {
    const res = await validated(EMPTY_MINER);
    assertWire(blocksPageSchema, res.body);
    const [empty, orphan] = res.body.items;
    expect(orphan).toMatchObject({ height: 200, type: 'reorg' });
    expect(empty).toMatchObject({
      height: 201,
      type: 'block',
      base_fee_per_gas: null,
      burnt_fees: '0',
      burnt_fees_percentage: null,
      transaction_fees: '0',
      gas_used_percentage: 0,
      gas_target_percentage: -100,
      total_difficulty: null,
      // no withdrawals list in the header: none, as the reference counts them (0, not null)
      withdrawals_count: 0,
      internal_transactions_count: 0,
      // pre-Dencun: the values the reference's recording of block 12345 shows
      blob_gas_used: null,
      excess_blob_gas: null,
      blob_transactions_count: 0,
      blob_transaction_count: 0,
      rewards: [{ reward: '5000000000000000000', type: 'Miner Reward', address_hash: empty.miner.hash }],
      uncles_hashes: [{ hash: hashOf(1, 'uncle') }],
    });
  });

  it('a block with a chain kind\'s header fields carries that kind\'s object (Arbitrum: nine fields)', async () => {
    const res = await validated(SEQUENCER);
    assertWire(blocksPageSchema, res.body);
    expect(res.body.items[0].arbitrum).toEqual({
      batch_number: null,
      status: null,
      batch_data_container: null,
      commitment_transaction: { hash: null, status: null, timestamp: null },
      confirmation_transaction: { hash: null, status: null, timestamp: null },
      delayed_messages: Number(BigInt(arbitrumHeader.nonce!)),
      l1_block_number: Number(BigInt(arbitrumHeader.l1BlockNumber!)),
      l1_block_height: Number(BigInt(arbitrumHeader.l1BlockNumber!)),
      send_count: Number(BigInt(arbitrumHeader.sendCount!)),
      send_root: arbitrumHeader.sendRoot!.toLowerCase(),
    });
  });

  it('the elasticity configured for the chain shapes gas_target_percentage', async () => {
    await ensureChain(api.db, CHAIN, 8);
    await new Promise((r) => setTimeout(r, 2_100)); // the chain registry refreshes every 2 s
    const res = await validated(MINER, { items_count: 1 });
    const row = blockRow(CHAIN, 101, MINER);
    expect(res.body.items[0].gas_target_percentage).toBeCloseTo((Number(row.gasUsed) / (Number(row.gasLimit) / 8) - 1) * 100, 9);
    await ensureChain(api.db, CHAIN, 2);
  });
});
