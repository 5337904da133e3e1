/**
 * The blocks-validated page splices each block's part rendered at write time (page_json,
 * api/views/block-page-json.ts) with what changes per request. Its bytes must be what the
 * page's schema serializer makes of blockView over the full stored rows (the route's answer
 * before the splice), for real blocks (../shared/fixtures/real: Ethereum mainnet, a 2015 block
 * with an uncle and rewards, Arbitrum Sepolia with its kind's fields) and after what changes a
 * stored block's object: a reorg, an uncle mark, the chain's elasticity, the miner's labels,
 * Arbitrum settlement. Blocks without a rendering (stored before migration 021) serve the same
 * bytes, and the backfill renders what the writer renders.
 */
import fastJson from 'fast-json-stringify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from '../../src/db/rows.js';
import type { BlockRow } from '../../src/db/model/block.js';
import { buildBlockRow } from '../../src/evm/block-row.js';
import { summarizeTraceBlock } from '../../src/evm/traces.js';
import { chainFieldsOf } from '../../src/chains/index.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { upsertBlocks } from '../../src/db/queries/write-blocks.js';
import { blockByHash } from '../../src/db/queries/blocks.js';
import { renderPendingBlockPages } from '../../src/db/queries/block-pages.js';
import { orphanBlocksAbove } from '../../src/db/queries/progress.js';
import { registerContracts, recordSealedBatch } from '../../src/chains/arbitrum/store.js';
import { importLabels } from '../../src/labels/store.js';
import { blockView } from '../../src/api/views/block.js';
import { BlocksValidatedPage } from '../../src/api/schemas/blocks.js';
import type { RpcBlock, RpcReceipt } from '../../src/rpc/types.js';
import { availableEngines } from '../support/databases.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { fixtureResult } from '../support/replay-rpc.js';
import { recordedTraces, standInFullBlock, standInReceipts } from '../support/block-508110.js';
import { addressOf, blockRow } from '../support/seed.js';
import { encodePacked } from 'viem';
import { gasTargetPercentage } from '../../src/api/views/block-percentages.js';

const MAINNET = 1;
const ARBITRUM = 421614;
const OP_STACK = 10;

function rowOf(chainId: number, block: RpcBlock, receipts: RpcReceipt[], traces: ReturnType<typeof summarizeTraceBlock> | null = null): BlockRow {
  return { ...buildBlockRow(block, receipts, traces, { chainId }), chainFields: chainFieldsOf(block) };
}

const mainnetBlocks = (): BlockRow[] => [
  rowOf(
    MAINNET,
    fixtureResult<RpcBlock>('ethereum-mainnet/block-18000000.eth_getBlockByNumber.full.json'),
    fixtureResult<RpcReceipt[]>('ethereum-mainnet/block-18000000.eth_getBlockReceipts.json'),
  ),
  rowOf(
    MAINNET,
    fixtureResult<RpcBlock>('ethereum-mainnet/blocks-17000000-17000001.eth_getBlockByHash.full.batch.json', 0),
    fixtureResult<RpcReceipt[]>('ethereum-mainnet/block-17000000.erigon_getBlockReceiptsByBlockHash.json'),
  ),
  // 2015: no base fee, a PoW reward, an uncle
  rowOf(MAINNET, standInFullBlock(), standInReceipts(), summarizeTraceBlock(recordedTraces())),
];

const arbitrumBlocks = (): BlockRow[] => [
  rowOf(
    ARBITRUM,
    fixtureResult<RpcBlock>('arbitrum-sepolia/block-185232421.eth_getBlockByNumber.full.json'),
    fixtureResult<RpcReceipt[]>('arbitrum-sepolia/block-185232421.eth_getBlockReceipts.json'),
  ),
  rowOf(ARBITRUM, fixtureResult<RpcBlock>('arbitrum-sepolia/block-0.eth_getBlockByNumber.full.json'), []),
];

describe.each(await availableEngines())('the blocks-validated page from rendered parts on %s', (engine) => {
  let api: TestApi;
  let schemaJson: (page: unknown) => string;
  const blocks = [...mainnetBlocks(), ...arbitrumBlocks()];
  // more blocks of the first one's miner, for pages of several rows and their next_page_params
  const sameMiner = [1, 2, 3].map((i) => blockRow(MAINNET, 18_000_000 - i, blocks[0]!.miner));

  /** The served page's bytes against the schema's serializer over blockView of the full rows. */
  async function expectSamePage(block: BlockRow, query: Record<string, string> = {}) {
    const res = await api.app.inject({
      method: 'GET',
      url: `/${block.chainId}/api/v2/addresses/${block.miner}/blocks-validated?${new URLSearchParams({ apikey: 'test-key-0123456789', ...query })}`,
    });
    expect(res.statusCode, res.body).toBe(200);
    const served = JSON.parse(res.body) as { items: Array<{ hash: Hex }>; next_page_params: unknown };
    expect(served.items.length).toBeGreaterThan(0);
    const chain = (await api.db.query<{ elasticity: number }>('SELECT elasticity FROM chains WHERE chain_id = $1', [block.chainId]))[0]!;
    const views = [];
    for (const item of served.items) views.push(blockView((await blockByHash(api.db, block.chainId, item.hash))!, chain.elasticity));
    expect(res.body).toBe(schemaJson({ items: views, next_page_params: served.next_page_params }));
    return served;
  }

  const storedPages = () =>
    api.db.query<{ hash: string; page_json: string | null }>(`SELECT encode(hash, 'hex') AS hash, page_json FROM blocks ORDER BY hash`);

  beforeAll(async () => {
    api = await startTestApi(engine, { api: { pageCacheMs: 0 } });
    schemaJson = fastJson(BlocksValidatedPage, { schema: api.app.getSchemas() as Record<string, fastJson.Schema> });
    await ensureChain(api.db, MAINNET, 2);
    await ensureChain(api.db, ARBITRUM, 2);
    await ensureChain(api.db, OP_STACK, 2);
    await upsertBlocks(api.db, [...blocks, ...sameMiner]);
  });
  afterAll(() => api?.close());

  it('every real block, as written', async () => {
    for (const block of blocks) await expectSamePage(block);
    const first = await expectSamePage(blocks[0]!, { items_count: '2' });
    expect(first.items).toHaveLength(2);
    await expectSamePage(blocks[0]!, { block_number: String(18_000_000 - 1), items_count: '2' });
  });

  it("the miner's name and tags (text JSON escapes), spliced once per page", async () => {
    const miner = blocks[0]!.miner;
    await importLabels(api.db, [
      {
        chainId: MAINNET, address: miner, name: 'Builder "β" \\ 0x', isScam: false,
        publicTags: [{ displayName: 'MEV\nbuilder', label: 'mev-builder' }],
        metadataTags: [{ name: 'Entity', slug: 'entity', ordinal: 1, tagType: 'name', meta: { tooltipUrl: 'https://example.org/?a="b"' } }],
      },
    ]);
    await expectSamePage(blocks[0]!);
  });

  it('after a reorg (type "reorg"), an uncle mark (type "uncle") and another elasticity', async () => {
    const [, , old] = blocks;
    await orphanBlocksAbove(api.db, MAINNET, old!.number);
    await expectSamePage(blocks[0]!);
    await api.db.query('UPDATE blocks SET consensus = false, is_uncle = true WHERE chain_id = $1 AND number = $2', [MAINNET, old!.number.toString()]);
    await expectSamePage(old!);
    await ensureChain(api.db, MAINNET, 3);
    await new Promise((r) => setTimeout(r, 2_100)); // the chain registry refreshes every 2 s
    await expectSamePage(blocks[1]!);
    await expectSamePage(old!);
  });

  it("Arbitrum's settlement, learnt after the block was written", async () => {
    const [sealed] = arbitrumBlocks();
    await registerContracts(api.db, ARBITRUM, { parentChainId: 11155111, sequencerInbox: `0x${'11'.repeat(20)}`, outbox: `0x${'22'.repeat(20)}` });
    await expectSamePage(sealed!);
    await recordSealedBatch(api.db, ARBITRUM, 7n, sealed!.number, sealed!.number);
    const page = await expectSamePage(sealed!);
    expect(page.items[0]).toMatchObject({ arbitrum: { batch_number: 7, status: 'Sealed on rollup' } });
  });

  it("an OP-stack header's own elasticity (Holocene's and Jovian's extraData) outranks the chain's setting", async () => {
    // extraData laid out by the OP specs, encoded here by viem: version, denominator, elasticity (and Jovian's minimum base fee)
    const holocene = encodePacked(['uint8', 'uint32', 'uint32'], [0, 250, 6]);
    const jovian = encodePacked(['uint8', 'uint32', 'uint32', 'uint64'], [1, 50, 3, 10n ** 9n]);
    const source = fixtureResult<RpcBlock>('ethereum-mainnet/block-18000000.eth_getBlockByNumber.full.json');
    // the header's gas figures as they are; no transactions, so that other hashes do not orphan its receipts
    const [h, j] = [holocene, jovian].map((extraData, i) =>
      rowOf(OP_STACK, { ...source, extraData, transactions: [], number: `0x${(18_000_000 + i).toString(16)}`, hash: `0x${String(i + 1).repeat(64)}`, miner: addressOf(i, 'sequencer') }, []),
    );
    expect([h!.chainFields, j!.chainFields]).toEqual([
      { eip1559: { denominator: 250, elasticity: 6 } },
      { eip1559: { denominator: 50, elasticity: 3, minBaseFee: '1000000000' } },
    ]);
    await upsertBlocks(api.db, [h!, j!]);
    for (const [row, elasticity] of [[h!, 6n], [j!, 3n]] as const) {
      const expected = gasTargetPercentage(row.gasUsed, row.gasLimit, elasticity);
      expect(expected).not.toBe(gasTargetPercentage(row.gasUsed, row.gasLimit, 2n));
      const page = await expectSamePage(row);
      expect(page.items[0]).toMatchObject({ gas_target_percentage: expected });
      expect(page.items[0]).not.toHaveProperty('eip1559');
      const single = await api.get(`/${OP_STACK}/api/v2/blocks/${row.hash}`);
      expect(single.body).toMatchObject({ gas_target_percentage: expected });
    }
  });

  it('blocks stored before migration 021 (no rendering) serve the same bytes; the backfill renders what the writer rendered', async () => {
    const written = await storedPages();
    // one block of a page of several
    await api.db.query('UPDATE blocks SET page_json = NULL WHERE chain_id = $1 AND number = $2', [MAINNET, sameMiner[1]!.number.toString()]);
    await expectSamePage(blocks[0]!);
    await expectSamePage(blocks[0]!, { items_count: '2' });
    await api.db.query('UPDATE blocks SET page_json = NULL WHERE chain_id = $1', [MAINNET]);
    for (const block of blocks) await expectSamePage(block);
    while ((await renderPendingBlockPages(api.db, MAINNET, 1)) > 0);
    expect(await storedPages()).toEqual(written);
    for (const block of blocks) await expectSamePage(block);
  });

  it('a block whose rendering would not fit an index entry (dozens of rewards) is not kept rendered, and serves the same bytes', async () => {
    const rewards = Array.from({ length: 40 }, (_, i) => ({ reward: BigInt(i + 1) * 10n ** 18n, type: 'emission_funds', address: addressOf(i, 'holder') }));
    const large = blockRow(MAINNET, 500, addressOf(9, 'miner'), { rewards });
    await upsertBlocks(api.db, [large, blockRow(MAINNET, 501, large.miner)]);
    const stored = await api.db.query<{ page_json: string | null }>('SELECT page_json FROM blocks WHERE chain_id = $1 AND number = 500', [MAINNET]);
    expect(stored[0]!.page_json).toBe('');
    await expectSamePage(large);
    // the backfill does not take it for unrendered
    expect(await renderPendingBlockPages(api.db, MAINNET, 10)).toBe(0);
  });
});
