/**
 * GET /{chain_id}/api/v2/blocks/{number or hash}: the reference's single-block object, lookups
 * and answers (recording api_v2_blocks_12345.json, COMPATIBILITY.md), over a real mainnet block
 * (18,000,000 with all its receipts, README "Check values") and seeded reorg/uncle rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureChain } from '../../src/db/queries/chains.js';
import { setIndexedBlock } from '../../src/db/queries/progress.js';
import { upsertBlocks } from '../../src/db/queries/write-blocks.js';
import { buildBlockRow } from '../../src/evm/block-row.js';
import { chainFieldsOf } from '../../src/chains/index.js';
import type { RpcBlock, RpcReceipt } from '../../src/rpc/types.js';
import { availableEngines } from '../support/databases.js';
import { startTestApi, TEST_KEY, type TestApi } from '../support/api.js';
import { fixtureResult, readFixture } from '../support/replay-rpc.js';
import { addressOf, blockRow, hashOf } from '../support/seed.js';
import { assertWire, singleBlockSchema, validationSchema } from './wire-schema.js';

const MAINNET = 1;
const OTHER = 10;
const block18M = fixtureResult<RpcBlock>('ethereum-mainnet/block-18000000.eth_getBlockByNumber.full.json');
const receipts18M = fixtureResult<RpcReceipt[]>('ethereum-mainnet/block-18000000.eth_getBlockReceipts.json');
const arbitrumHeader = fixtureResult<RpcBlock>('arbitrum-sepolia/block-185232421.eth_getBlockByNumber.full.json');
const MINER = addressOf(1, 'miner');
const SEQUENCER = addressOf(2, 'miner');

/** The reference's single block 12345 (a 2015 block): what it shows for a block without blobs. */
function recorded12345(): Record<string, unknown> {
  const recording = readFixture('blockscout-eth-api-v2/api_v2_blocks_12345.json') as { response: { body: string } };
  return JSON.parse(recording.response.body) as Record<string, unknown>;
}

const BLOCK_PARAM = 'block_hash_or_number_param';
const ANY_OF = 'Failed to cast value using any of: Schema(title: "FullHash", type: :string), Schema(type: :integer)';
const HASH_FORMAT = 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{64})$/';
const invalidBlock = (integerDetail: string) => ({
  errors: [ANY_OF, integerDetail, HASH_FORMAT].map((detail) => ({ title: 'Invalid value', source: { pointer: `/${BLOCK_PARAM}` }, detail })),
});

/** a followed Arbitrum chain whose block 9 has an orphan (its own chain: a settlement changes what OTHER's blocks show) */
const ROLLUP = 77_777;

describe.each(await availableEngines())('single block on %s', (engine) => {
  let api: TestApi;
  const block = (chain: number, ref: string, query: Record<string, string | number> = {}) => api.get(`/${chain}/api/v2/blocks/${ref}`, query);

  beforeAll(async () => {
    api = await startTestApi(engine);
    await ensureChain(api.db, MAINNET);
    await ensureChain(api.db, OTHER);
    await ensureChain(api.db, ROLLUP);
    await upsertBlocks(api.db, [
      { ...buildBlockRow(block18M, receipts18M, null, { chainId: MAINNET }), chainFields: chainFieldsOf(block18M) },
      // height 7: the consensus block and an orphan of a reorg; height 8: only an uncle is known
      blockRow(OTHER, 7, MINER),
      blockRow(OTHER, 7, MINER, { hash: hashOf(7, 'orphan'), consensus: false }),
      blockRow(OTHER, 8, MINER, { hash: hashOf(8, 'uncle'), consensus: false, isUncle: true }),
      blockRow(OTHER, 9, SEQUENCER, { chainFields: chainFieldsOf(arbitrumHeader) }),
    ]);
  });
  afterAll(() => api?.close());

  it('a real block by number: the reference\'s fields, values from the node\'s data', async () => {
    const res = await block(MAINNET, '18000000');
    expect(res.status).toBe(200);
    assertWire(singleBlockSchema, res.body);
    expect(res.body).toMatchObject({
      height: 18_000_000,
      hash: block18M.hash,
      type: 'block',
      gas_used: '16247211',
      transaction_fees: '383604366542520501',
      burnt_fees: '352907159041663251',
      priority_fee: '30697207500857250',
      transactions_count: 94,
      withdrawals_count: 16,
      // the single block labels rewards as the reference does; the list keeps "validator"
      rewards: [{ reward: '30697207500857250', type: 'Miner Reward', address_hash: '0xDAFEA492D9c6733ae3d56b7Ed1ADB60692c98Bc5' }],
    });
    expect(res.body.miner.hash).toBe('0xDAFEA492D9c6733ae3d56b7Ed1ADB60692c98Bc5');
  });

  it('a block without blobs (before Dencun) shows what the reference shows for one', async () => {
    const { body } = await block(MAINNET, '18000000');
    const reference = recorded12345();
    for (const key of ['blob_gas_used', 'excess_blob_gas', 'blob_gas_price', 'burnt_blob_fees', 'blob_transactions_count', 'blob_transaction_count']) {
      expect(body[key], key).toEqual(reference[key]);
    }
  });

  it('by hash in any case; a non-consensus block by hash carries its type', async () => {
    expect((await block(MAINNET, block18M.hash.toUpperCase().replace('0X', '0x'))).body.height).toBe(18_000_000);
    const orphan = await block(OTHER, hashOf(7, 'orphan'));
    expect(orphan.status).toBe(200);
    expect(orphan.body).toMatchObject({ height: 7, type: 'reorg', hash: hashOf(7, 'orphan') });
    expect((await block(OTHER, hashOf(8, 'uncle'))).body).toMatchObject({ height: 8, type: 'uncle' });
  });

  it('by number: the consensus block; "Block lost consensus" with its hash when only a non-consensus one is known', async () => {
    expect((await block(OTHER, '7')).body).toMatchObject({ type: 'block', hash: blockRow(OTHER, 7, MINER).hash });
    const lost = await block(OTHER, '8');
    expect(lost.status).toBe(404);
    expect(lost.body).toEqual({ message: 'Block lost consensus', hash: hashOf(8, 'uncle') });
  });

  it('integers as the reference reads them: leading zeros and a plus sign', async () => {
    for (const ref of ['007', '+7', '0000000007']) expect((await block(OTHER, ref)).body.height, ref).toBe(7);
  });

  it('404 Not found: unknown number, unknown hash, a number beyond any block, another chain\'s block, unknown chain', async () => {
    for (const [chain, ref] of [
      [OTHER, '6'],
      [OTHER, hashOf(6, 'nothing')],
      [OTHER, '18446744073709551616'],
      [OTHER, '9'.repeat(200)],
      [OTHER, '18000000'],
      [424242, '7'],
    ] as const) {
      const res = await block(chain, ref);
      expect(res.status, `${chain}/${ref}`).toBe(404);
      expect(res.body).toEqual({ message: 'Not found' });
    }
  });

  it.each([
    ['abc', 'Invalid integer. Got: string'],
    ['-1', '-1 is smaller than inclusive minimum 0'],
    ['-007', '-7 is smaller than inclusive minimum 0'],
    ['0x1234', 'Invalid integer. Got: string'],
    ['1.5', 'Invalid integer. Got: string'],
    ['1e3', 'Invalid integer. Got: string'],
    ['0x10', 'Invalid integer. Got: string'],
    [`0x${'a'.repeat(63)}`, 'Invalid integer. Got: string'],
    [`0x${'g'.repeat(64)}`, 'Invalid integer. Got: string'],
  ])('422 for %s: the reference\'s anyOf summary, then each branch', async (ref, integerDetail) => {
    const res = await block(OTHER, encodeURIComponent(ref));
    expect(res.status).toBe(422);
    expect(res.body).toEqual(invalidBlock(integerDetail));
    assertWire(validationSchema, res.body);
  });

  it('the other routes\' query rules, key and limit headers', async () => {
    const unexpected = await block(OTHER, '7', { items_count: 1 });
    expect(unexpected.status).toBe(422);
    expect(unexpected.body.errors[0]).toEqual({ title: 'Invalid value', source: { pointer: '/items_count' }, detail: 'Unexpected field: items_count' });
    expect((await block(OTHER, '7', { key: 'anything' })).status).toBe(200);
    const unauthenticated = await api.app.inject(`/${OTHER}/api/v2/blocks/7`);
    expect(unauthenticated.statusCode).toBe(401);
    expect(unauthenticated.json()).toEqual({ message: 'Invalid or missing API key' });
    const keyed = await api.app.inject({ url: `/${OTHER}/api/v2/blocks/7`, headers: { 'x-api-key': TEST_KEY } });
    expect(keyed.headers['x-ratelimit-limit']).toBeDefined();
    expect(keyed.headers['x-ratelimit-remaining']).toBeDefined();
  });

  it('an Arbitrum block carries its arbitrum object', async () => {
    const res = await block(OTHER, '9');
    assertWire(singleBlockSchema, res.body);
    expect(res.body.arbitrum).toMatchObject({
      l1_block_number: Number(BigInt(arbitrumHeader.l1BlockNumber!)),
      send_root: arbitrumHeader.sendRoot!.toLowerCase(),
      status: null,
    });
    expect((await block(OTHER, '7')).body).not.toHaveProperty('arbitrum');
  });

  it('an Arbitrum block that lost consensus has no settlement: its height\'s batch is the new branch\'s', async () => {
    const orphan = hashOf(9, 'rollup-orphan');
    await upsertBlocks(api.db, [
      blockRow(ROLLUP, 9, SEQUENCER, { chainFields: chainFieldsOf(arbitrumHeader) }),
      blockRow(ROLLUP, 9, SEQUENCER, { hash: orphan, consensus: false, chainFields: chainFieldsOf(arbitrumHeader) }),
    ]);
    await api.db.query(
      `INSERT INTO arbitrum_parent (chain_id, parent_chain_id, sequencer_inbox, outbox, safe_block) VALUES ($1, 1, '\\x01', '\\x02', 100)`,
      [ROLLUP],
    );
    await api.db.query(
      `INSERT INTO arbitrum_batches (chain_id, batch_number, first_block, last_block, tx_hash, parent_block, parent_timestamp)
       VALUES ($1, 4, 1, 20, '\\x${'ab'.repeat(32)}', 50, 1700000000)`,
      [ROLLUP],
    );
    const consensus = await block(ROLLUP, '9');
    expect(consensus.body.arbitrum).toMatchObject({ batch_number: 4, status: 'Sent to base' });
    const orphaned = await block(ROLLUP, orphan);
    expect(orphaned.status).toBe(200);
    expect(orphaned.body.type).toBe('reorg');
    assertWire(singleBlockSchema, orphaned.body);
    expect(orphaned.body.arbitrum).toMatchObject({ batch_number: null, status: null, commitment_transaction: { hash: null }, confirmation_transaction: { hash: null } });
  });

  it('is in the OpenAPI document with its answers', async () => {
    const doc = (await api.app.inject('/api/v2/openapi.json')).json();
    const operation = doc.paths['/{chain_id}/api/v2/blocks/{block_hash_or_number_param}'].get;
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '401', '404', '422', '429', '503']);
    expect(operation.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining([BLOCK_PARAM, 'key']));
  });

  it('burnt blob fees are blob gas used × blob gas price', async () => {
    const res = await block(OTHER, '7');
    const row = blockRow(OTHER, 7, MINER);
    expect(res.body.blob_gas_used).toBe(row.blobGasUsed!.toString());
    expect(BigInt(res.body.burnt_blob_fees)).toBe(row.blobGasUsed! * BigInt(res.body.blob_gas_price));
  });
});

describe('single block and the page cache', () => {
  it('a repeated request is a hit until the indexed block moves', async () => {
    const api = await startTestApi('pglite', { api: { pageCacheMs: 60_000 } });
    try {
      await ensureChain(api.db, OTHER);
      await upsertBlocks(api.db, [blockRow(OTHER, 7, MINER)]);
      const get = () => api.app.inject({ url: `/${OTHER}/api/v2/blocks/7`, headers: { 'x-api-key': TEST_KEY } });
      expect((await get()).headers['x-cache']).toBeUndefined();
      expect((await get()).headers['x-cache']).toBe('hit');
      await setIndexedBlock(api.db, OTHER, 8n);
      await new Promise((r) => setTimeout(r, 2_100)); // the chain registry refreshes every 2 s
      expect((await get()).headers['x-cache']).toBeUndefined();
    } finally {
      await api.close();
    }
  });
});
