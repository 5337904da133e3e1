/**
 * `/blocks` and `/main-page/blocks`: the reference's blocks list and its home page's latest
 * blocks, over stored rows whose truth is what was written: a consensus chain mined by three
 * addresses, blocks a reorg orphaned (two at one height, one above the consensus chain's top,
 * which the reference's `reorg` list leaves out), uncles. Every item's bytes are the schema
 * serializer's over blockView of its full row, each row with its own miner's decorations.
 */
import fastJson from 'fast-json-stringify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from '../../src/db/rows.js';
import type { BlockRow } from '../../src/db/model/block.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { upsertBlocks } from '../../src/db/queries/write-blocks.js';
import { blockByHash } from '../../src/db/queries/blocks.js';
import { importLabels } from '../../src/labels/store.js';
import { blockView } from '../../src/api/views/block.js';
import { BlocksValidatedPage, LatestBlocks } from '../../src/api/schemas/blocks.js';
import { availableEngines } from '../support/databases.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { addressOf, blockRow, hashOf } from '../support/seed.js';
import { assertWire, blocksPageSchema } from './wire-schema.js';

const CHAIN = 10;
const MINERS = [addressOf(1, 'miner'), addressOf(2, 'miner'), addressOf(3, 'miner')] as const;
const TOP = 120;

const consensus = Array.from({ length: TOP }, (_, i) => blockRow(CHAIN, i + 1, MINERS[i % 3]!));
const orphan = (height: number, n: number) => blockRow(CHAIN, height, MINERS[n % 3]!, { hash: hashOf(height * 10 + n, 'orphan'), consensus: false });
const reorged = [orphan(60, 1), orphan(60, 2), orphan(50, 1)];
const aboveTop = orphan(TOP + 5, 1);
const uncles = [30, 31].map((h) => blockRow(CHAIN, h, MINERS[2], { hash: hashOf(h, 'uncle'), consensus: false, isUncle: true }));

type Item = { hash: Hex; height: number; type: string; miner: { hash: string; name: string | null } };

describe.each(await availableEngines())('the blocks list and the latest blocks on %s', (engine) => {
  let api: TestApi;
  let pageJson: (page: unknown) => string;
  let arrayJson: (items: unknown) => string;
  const list = (query: Record<string, string | number> = {}) => api.get(`/${CHAIN}/api/v2/blocks`, query);

  /** Every page of a list, following next_page_params; the items in order. */
  async function walk(query: Record<string, string | number>): Promise<{ items: Item[]; pages: Item[][] }> {
    const pages: Item[][] = [];
    let next: Record<string, string | number> | null = query;
    while (next !== null && pages.length < 200) {
      const res = await list({ ...query, ...next });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      assertWire(blocksPageSchema, res.body);
      pages.push(res.body.items);
      next = res.body.next_page_params;
    }
    return { items: pages.flat(), pages };
  }

  /** The served bytes against the schema's serializer over blockView of each item's full row. */
  async function expectRowsRendered(body: string, items: Item[], next: unknown, bare = false) {
    const views = [];
    for (const item of items) views.push(blockView((await blockByHash(api.db, CHAIN, item.hash))!, 2));
    expect(body).toBe(bare ? arrayJson(views) : pageJson({ items: views, next_page_params: next }));
  }

  beforeAll(async () => {
    api = await startTestApi(engine, { api: { pageCacheMs: 0 } });
    const schemas = { schema: api.app.getSchemas() as Record<string, fastJson.Schema> };
    pageJson = fastJson(BlocksValidatedPage, schemas);
    arrayJson = fastJson(LatestBlocks, schemas);
    await ensureChain(api.db, CHAIN, 2);
    await upsertBlocks(api.db, [...consensus, ...reorged, aboveTop, ...uncles]);
    await importLabels(api.db, [{ chainId: CHAIN, address: MINERS[1], name: 'Sequencer "two"', isScam: false, publicTags: [], metadataTags: [] }]);
  });
  afterAll(() => api?.close());

  it('the consensus chain by default, newest first, 50 a page, each block once, each with its own miner', async () => {
    const first = await api.app.inject({ method: 'GET', url: `/${CHAIN}/api/v2/blocks?apikey=test-key-0123456789` });
    const body = JSON.parse(first.body);
    expect(body.items.map((b: Item) => b.height)).toEqual(Array.from({ length: 50 }, (_, i) => TOP - i));
    expect(body.next_page_params).toEqual({ block_number: TOP - 49, items_count: 50 });
    await expectRowsRendered(first.body, body.items, body.next_page_params);
    for (const item of body.items as Item[]) {
      const row = consensus[item.height - 1]!;
      expect([item.hash, item.type, item.miner.hash.toLowerCase()]).toEqual([row.hash, 'block', row.miner]);
      expect(item.miner.name).toBe(row.miner === MINERS[1] ? 'Sequencer "two"' : null);
    }
    const { items } = await walk({});
    expect(items.map((b) => b.hash)).toEqual([...consensus].reverse().map((r) => r.hash));
    // anything but uncle or reorg lists the consensus chain, as the reference reads `type`
    for (const type of ['block', 'BLOCK', 'nonsense', '']) expect((await list({ type, items_count: 3 })).body.items.map((b: Item) => b.height)).toEqual([TOP, TOP - 1, TOP - 2]);
  });

  it('block_number pages strictly below; items_count sets the size; the key rides along', async () => {
    const res = await list({ block_number: 10, items_count: 4, key: 'k1' });
    expect(res.body.items.map((b: Item) => b.height)).toEqual([9, 8, 7, 6]);
    expect(res.body.next_page_params).toEqual({ block_number: 6, items_count: 4, key: 'k1' });
    expect((await list({ block_number: 1 })).body).toEqual({ items: [], next_page_params: null });
    expect((await list({ items_count: 51 })).status).toBe(422);
    expect((await list({ block_number: -1 })).status).toBe(422);
  });

  it("type=reorg: the orphans at heights the consensus chain has, a height's orphans on one page at every size", async () => {
    const expected = [...reorged].sort((a, b) => Number(b.number - a.number) || (a.hash < b.hash ? -1 : 1)).map((r) => r.hash);
    for (const size of [1, 2, 3, 50]) {
      const { items, pages } = await walk({ type: 'reorg', items_count: size });
      expect(items.map((b) => b.hash), `size ${size}`).toEqual(expected);
      expect(items.every((b) => b.type === 'reorg')).toBe(true);
      for (const page of pages.slice(0, -1)) expect(page.length >= size).toBe(true);
    }
    const res = await api.app.inject({ method: 'GET', url: `/${CHAIN}/api/v2/blocks?type=Reorg&apikey=test-key-0123456789` });
    const body = JSON.parse(res.body);
    await expectRowsRendered(res.body, body.items, body.next_page_params);
    expect(body.items.map((b: Item) => b.hash)).not.toContain(aboveTop.hash);
  });

  it('type=uncle: the uncles, newest first', async () => {
    const { items } = await walk({ type: 'uncle', items_count: 1 });
    expect(items.map((b) => [b.hash, b.height, b.type])).toEqual([
      [uncles[1]!.hash, 31, 'uncle'],
      [uncles[0]!.hash, 30, 'uncle'],
    ]);
  });

  it("the home page's latest blocks: the consensus chain's top 4, a bare array", async () => {
    const res = await api.app.inject({ method: 'GET', url: `/${CHAIN}/api/v2/main-page/blocks?apikey=test-key-0123456789` });
    expect(res.statusCode).toBe(200);
    const body = JSON.parse(res.body) as Item[];
    expect(body.map((b) => b.hash)).toEqual(consensus.slice(-4).reverse().map((r: BlockRow) => r.hash));
    await expectRowsRendered(res.body, body, null, true);
    expect((await api.get(`/${CHAIN + 1}/api/v2/main-page/blocks`)).status).toBe(404);
  });

  it('blocks not rendered yet (stored before migration 021) serve the same bytes', async () => {
    const before = await list({ type: 'reorg' });
    await api.db.query('UPDATE blocks SET page_json = NULL WHERE chain_id = $1 AND NOT consensus', [CHAIN]);
    const after = await list({ type: 'reorg' });
    expect(after.body).toEqual(before.body);
  });
});
