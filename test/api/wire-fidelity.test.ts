/**
 * Wire fidelity against the reference's recorded responses (../shared/fixtures/real/
 * blockscout-eth-api-v2/): for every recorded response of an operation we serve, our response for
 * the same kind of object has every key the reference sends, recursively, with the same JSON type
 * (test/support/wire-shape.ts says how). Ours come from a real server over a real chain: anvil
 * with the demo contracts, a blob transaction, blocks mined by an EIP-1967 proxy (so the miner has
 * implementations), indexed with traces and enrichment, the recorded metadata tags attached.
 *
 * The deliberate differences are the table in docs/COMPATIBILITY.md: each must be needed (a
 * stale row fails too), so the document and the code cannot drift apart.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from '../../src/db/rows.js';
import { upsertAddressTags } from '../../src/db/queries/write-addresses.js';
import { deployScenario, type DemoScenario } from '../../src/devnet/scenario.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { DEVNET_CHAIN_ID, indexAndEnrich } from '../support/indexer-harness.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { fixtureDir, repoRoot } from '../support/replay-rpc.js';
import { sendBlobTransaction, testBlobs } from '../support/blobs.js';
import { compareShape, jsonType, learnShape, parseExceptions, type Difference, type Shape } from '../support/wire-shape.js';
import { openApiProblems, openApiSchemas } from '../support/openapi-shape.js';

const RECORDINGS = path.join(fixtureDir, 'blockscout-eth-api-v2');
/** The address page's and the chain-wide recordings, and the reference's published description (issue 17). */
const MORE_RECORDINGS = path.join(repoRoot, 'test/fixtures/reference-api-v2');

/**
 * Which of our responses each recording is compared with (`ours`), and the logical root of its
 * paths: the single block is a block object too, so its keys share the `block` paths.
 */
function kindOf(file: string): { root: string; ours: string; body: (parsed: any) => unknown[] } {
  if (/^api_v2_addresses_0x[0-9a-fA-F]{40}_counters\.json$/.test(file)) return { root: 'address-counters', ours: 'address-counters', body: (b) => [b] };
  // the address page's object is an address object with more keys
  if (/^api_v2_addresses_0x[0-9a-fA-F]{40}\.json$/.test(file)) return { root: 'address', ours: 'address-page', body: (b) => [b] };
  if (file === 'api_v2_stats.json') return { root: 'stats', ours: 'stats', body: (b) => [b] };
  if (file.includes('_blocks-validated')) return { root: 'blocks-page', ours: 'blocks-page', body: (b) => [b] };
  if (file.startsWith('api_v2_blocks_')) return { root: 'block', ours: 'single-block', body: (b) => [b] };
  // the blocks list: a page of block objects, as blocks-validated's
  if (file.startsWith('api_v2_blocks.')) return { root: 'blocks-page', ours: 'blocks-list', body: (b) => [b] };
  if (file.endsWith('_holders.json')) return { root: 'holders-page', ours: 'holders-page', body: (b) => [b] };
  if (file.endsWith('_counters.json')) return { root: 'token-counters', ours: 'token-counters', body: (b) => [b] };
  if (file.startsWith('api_v2_tokens_')) return { root: 'token', ours: 'token', body: (b) => [b] };
  throw new Error(`no rule for recording ${file}: add one`);
}

const recordings = [RECORDINGS, MORE_RECORDINGS]
  .flatMap((dir) => readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((file) => ({ dir, file })))
  .map(({ dir, file }) => {
    const recording = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { response: { body: string } };
    const { root, ours, body } = kindOf(file);
    return { file, root, ours, values: body(JSON.parse(recording.response.body)) };
  });
const allReferences: Shape = new Map();
for (const r of recordings) learnShape(r.root, r.values, allReferences);

const documented = parseExceptions(readFileSync(path.join(repoRoot, 'docs/COMPATIBILITY.md'), 'utf8'));

/** The recorded metadata tags of a real address, attached to ours (same shape, real content). */
function recordedTags(file: string): Array<{ name: string; slug: string; ordinal: number; tagType: string; meta: Record<string, string> }> {
  const recording = recordings.find((r) => r.file === file)!;
  const withTags = (recording.values as any[]).flatMap((page) => page.items).find((b) => b.miner?.metadata?.tags?.length >= 2);
  return withTags.miner.metadata.tags;
}

let node: TestNode;
let scenario: DemoScenario;

beforeAll(async () => {
  node = await startTestNode({ hardfork: 'prague' });
  scenario = await deployScenario(node, { holders: 12, nfts: 3, seed: 'wire-fidelity' });
  // blocks mined by a proxy contract: the miner's address object has implementations
  await node.setCoinbase(scenario.proxy);
  await sendBlobTransaction(node.chain, node.url, testBlobs(2));
  await node.mine(3);
}, 180_000);
afterAll(() => node?.stop());

describe.each(await availableEngines())('wire fidelity to the recorded responses on %s', (engine) => {
  let api: TestApi;
  const ours = new Map<string, unknown[]>();
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const fresh = await freshDatabase(engine);
    drop = fresh.drop;
    await indexAndEnrich(fresh.db, node.url);
    const tags = recordedTags('api_v2_blocks.2025-08-11.json');
    const top = async () => (await api.get(`/${DEVNET_CHAIN_ID}/api/v2/tokens/${scenario.erc1155}/holders`, { items_count: 1 })).body.items[0].address.hash as string;
    api = await startTestApi(engine, { db: fresh.db });
    for (const address of [scenario.proxy, await top()]) {
      await upsertAddressTags(
        fresh.db,
        tags.map((t) => ({ chainId: DEVNET_CHAIN_ID, address: address.toLowerCase() as Hex, kind: 'metadata' as const, ...t })),
      );
    }

    const get = async (p: string, query: Record<string, string | number> = {}) => {
      const res = await api.get(`/${DEVNET_CHAIN_ID}/api/v2${p}`, query);
      expect(res.status, p).toBe(200);
      return res.body;
    };
    const blocksPage = await get(`/addresses/${scenario.proxy}/blocks-validated`, { items_count: 3 });
    expect(blocksPage.next_page_params).not.toBeNull();
    const allBlocks = (await get(`/addresses/${scenario.proxy}/blocks-validated`)).items as Array<{ height: number }>;
    const holdersPage = await get(`/tokens/${scenario.erc1155}/holders`, { items_count: 3 });
    expect(holdersPage.next_page_params).not.toBeNull();
    ours.set('blocks-page', [blocksPage]);
    const blocksList = await get('/blocks', { items_count: 3 });
    expect(blocksList.next_page_params).not.toBeNull();
    ours.set('blocks-list', [blocksList]);
    ours.set('block', allBlocks);
    ours.set('single-block', await Promise.all(allBlocks.map((b) => get(`/blocks/${b.height}`))));
    // one ERC-1155 id's holders (…/instances/{id}/holders) are the same page
    const instancePage = await get(`/tokens/${scenario.erc1155}/instances/${scenario.erc1155Ids[0]}/holders`, { items_count: 1 });
    expect(instancePage.next_page_params).not.toBeNull();
    ours.set('holders-page', [holdersPage, instancePage]);
    // the ERC-20 and the ERC-1155 (a contract without name(): its name is null, as the reference's would be)
    ours.set('token', [await get(`/tokens/${scenario.erc20}`)]);
    ours.set('token-counters', [await get(`/tokens/${scenario.erc20}/counters`), await get(`/tokens/${scenario.erc1155}/counters`)]);
    // the address page of a miner (a proxy, tagged), of a holder (tagged) and of a token
    const pages = [scenario.proxy, await top(), scenario.erc20];
    ours.set('address-page', await Promise.all(pages.map((a) => get(`/addresses/${a}`))));
    ours.set('address-counters', await Promise.all(pages.map((a) => get(`/addresses/${a}/counters`))));
    ours.set('tabs-counters', await Promise.all(pages.map((a) => get(`/addresses/${a}/tabs-counters`))));
    ours.set('stats', [await get('/stats')]);
    ours.set('indexing-status', [await get('/main-page/indexing-status')]);
    ours.set('backend-version', [await get('/config/backend-version')]);
  }, 180_000);
  afterAll(async () => {
    await api?.close();
    await drop?.();
  });

  it('our data holds what the comparison needs: a blob transaction, a proxy miner, tags', () => {
    const blocks = ours.get('block') as any[];
    expect(blocks.some((b) => b.blob_transactions_count > 0)).toBe(true);
    expect(blocks[0].miner.implementations.length).toBeGreaterThan(0);
    expect(blocks[0].miner.metadata.tags.length).toBeGreaterThan(0);
  });

  const found: Difference[] = [];
  it.each(recordings.map((r) => [r.file, r] as const))('%s: every recorded key, same JSON type', (_file, recording) => {
    const differences = compareShape(recording.root, ours.get(recording.ours)!, learnShape(recording.root, recording.values), allReferences);
    found.push(...differences);
    const unexplained = differences.filter((d) => !documented.some((e) => e.path === d.path && e.kind === d.kind));
    expect(unexplained, 'differences not in docs/COMPATIBILITY.md').toEqual([]);
  });

  it('the address page objects cover what the comparison needs: a miner, a holder, a token', () => {
    const pages = ours.get('address-page') as any[];
    expect(pages.some((p) => p.has_validated_blocks)).toBe(true);
    expect(pages.some((p) => p.has_tokens)).toBe(true);
    expect(pages.some((p) => p.token !== null)).toBe(true);
    expect(pages.some((p) => p.token === null)).toBe(true);
  });

  // No recording of these: the reference's published description instead (the fixture's README)
  it('indexing-status: the published IndexingStatus schema', () => {
    const schema = openApiSchemas(path.join(MORE_RECORDINGS, 'blockscout-api-v2.yaml')).IndexingStatus!;
    expect(Object.keys(schema.properties).length).toBeGreaterThan(3);
    for (const body of ours.get('indexing-status') as Record<string, unknown>[]) expect(openApiProblems(schema, body)).toEqual([]);
  });

  // Neither a recording nor a published description was found (the fixture's README): these are
  // the keys and types the reference's frontend (v2.0.3) reads, as observed in its source.
  it('tabs-counters and backend-version: the keys and types the reference\'s frontend reads', () => {
    const tabKeys = ['internal_transactions_count', 'logs_count', 'token_balances_count', 'token_transfers_count', 'transactions_count', 'validations_count', 'withdrawals_count'];
    for (const body of ours.get('tabs-counters') as Record<string, unknown>[]) {
      expect(Object.keys(body).sort()).toEqual(tabKeys);
      for (const key of tabKeys) expect(['number', 'null']).toContain(jsonType(body[key]));
    }
    expect(ours.get('tabs-counters')!.some((b: any) => b.validations_count > 0)).toBe(true);
    for (const body of ours.get('backend-version') as any[]) expect(typeof body.backend_version).toBe('string');
  });

  it('every documented difference is still a difference (no stale rows)', () => {
    const stale = documented.filter((e) => !found.some((d) => d.path === e.path && d.kind === e.kind));
    expect(stale).toEqual([]);
    expect(documented.every((e) => e.reason.length > 20)).toBe(true);
  });
});
