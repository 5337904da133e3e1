/**
 * The calls the reference explorer's web frontend makes on an address page and on every page
 * (issue 17), served by a real server over an indexed anvil chain and checked against the node:
 * validations against the node's blocks by miner, token balances against balanceOf, the token
 * object against the token route, stats against the node's blocks. Their key sets and JSON types
 * against the reference's recordings are test/api/wire-fidelity.test.ts's job.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { deployScenario, type DemoScenario } from '../../src/devnet/scenario.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { DEVNET_CHAIN_ID, indexAndEnrich } from '../support/indexer-harness.js';
import { startTestApi, TEST_KEY, type TestApi } from '../support/api.js';
import { nodeBalances, truthClient } from '../support/ground-truth.js';
import { repoRoot } from '../support/replay-rpc.js';
import { indexingStatusView } from '../../src/api/views/chain-info.js';
import type { ChainStatus } from '../../src/db/queries/chains.js';

const BUSY_MINER = '0x00000000000000000000000000000000000b10c5' as Address;
const QUIET_MINER = '0x000000000000000000000000000000000000a11e' as Address;
const NOBODY = '0x0000000000000000000000000000000000000bad';
const SECRET = 'frontend-routes-secret';

let node: TestNode;
let scenario: DemoScenario;
let blocks: Array<{ hash: string; number: bigint; miner: string; transactions: unknown[]; gasUsed: bigint; gasLimit: bigint; timestamp: bigint }>;
let balances: Map<string, bigint>;

beforeAll(async () => {
  node = await startTestNode();
  scenario = await deployScenario(node, { holders: 12, nfts: 3, seed: 'frontend-routes' });
  // more than the 51 the tab counter stops at, and a miner of a few
  await node.setCoinbase(BUSY_MINER);
  await node.mine(55);
  await node.setCoinbase(QUIET_MINER);
  await node.mine(3);
  const truth = truthClient(node.url);
  const head = await truth.getBlockNumber();
  blocks = await Promise.all(Array.from({ length: Number(head) + 1 }, (_, i) => truth.getBlock({ blockNumber: BigInt(i) })));
  balances = await nodeBalances(truth, head);
}, 180_000);
afterAll(() => node?.stop());

const minedBy = (miner: string) => blocks.filter((b) => b.miner.toLowerCase() === miner.toLowerCase()).length;
const holdingsOf = (holder: string) => [...balances.keys()].filter((k) => k.split('|')[1] === holder.toLowerCase()).length;

describe.each(await availableEngines())('the frontend\'s address and chain calls on %s', (engine) => {
  let api: TestApi;
  let drop: () => Promise<void>;
  let restricted: Address;
  const get = (p: string, query: Record<string, string | number> = {}) => api.get(`/${DEVNET_CHAIN_ID}/api/v2${p}`, query);

  beforeAll(async () => {
    const fresh = await freshDatabase(engine);
    drop = fresh.drop;
    await indexAndEnrich(fresh.db, node.url);
    restricted = scenario.holders[1]!.toLowerCase() as Address;
    api = await startTestApi(engine, { db: fresh.db, api: { restrictedAddresses: [restricted, scenario.weth.toLowerCase() as Address], restrictedKey: SECRET } });
  }, 180_000);
  afterAll(async () => {
    await api?.close();
    await drop?.();
  });

  it('validations: the node\'s blocks by miner, the tab counter cut at 51', async () => {
    expect(minedBy(BUSY_MINER)).toBe(55);
    for (const miner of [BUSY_MINER, QUIET_MINER]) {
      const [address, tabs, counters] = await Promise.all([get(`/addresses/${miner}`), get(`/addresses/${miner}/tabs-counters`), get(`/addresses/${miner}/counters`)]);
      expect(address.status).toBe(200);
      expect(address.body.has_validated_blocks).toBe(true);
      expect(counters.body.validations_count).toBe(String(minedBy(miner)));
      expect(tabs.body.validations_count).toBe(Math.min(minedBy(miner), 51));
    }
  });

  it('token balances: the node\'s balanceOf, per holder', async () => {
    const holders = scenario.holders.filter((h) => h.toLowerCase() !== restricted).slice(0, 6);
    for (const holder of holders) {
      // (with the secret: WETH is restricted here, the case below)
      const [address, tabs] = await Promise.all([get(`/addresses/${holder}`, { key: SECRET }), get(`/addresses/${holder}/tabs-counters`, { key: SECRET })]);
      const held = holdingsOf(holder);
      expect(tabs.body.token_balances_count, holder).toBe(Math.min(held, 51));
      expect(address.body.has_tokens, holder).toBe(held > 0);
      expect(address.body.has_token_transfers, holder).toBe(held > 0 ? true : null);
      expect(address.body.has_validated_blocks).toBe(false);
    }
    expect(holders.some((h) => holdingsOf(h) > 1)).toBe(true);
  });

  it("a restricted token counts among an address's holdings only for a request carrying the secret", async () => {
    const weth = scenario.weth.toLowerCase();
    const holders = scenario.holders.filter((h) => h.toLowerCase() !== restricted && [...balances.keys()].some((k) => k.startsWith(`${weth}|${h.toLowerCase()}|`)));
    expect(holders.length).toBeGreaterThan(0);
    for (const holder of holders) {
      const held = holdingsOf(holder);
      const [tabs, secretTabs, address, secretAddress] = await Promise.all([
        get(`/addresses/${holder}/tabs-counters`),
        get(`/addresses/${holder}/tabs-counters`, { key: SECRET }),
        get(`/addresses/${holder}`),
        get(`/addresses/${holder}`, { key: SECRET }),
      ]);
      expect([tabs.body.token_balances_count, secretTabs.body.token_balances_count], holder).toEqual([Math.min(held - 1, 51), Math.min(held, 51)]);
      expect([address.body.has_tokens, secretAddress.body.has_tokens], holder).toEqual([held > 1, true]);
    }
  });

  it("the blocks list and the home page's latest blocks: the node's blocks, newest first, each once, with their miners and transaction counts", async () => {
    const seen: Array<{ hash: string; height: number; miner: { hash: string }; transactions_count: number }> = [];
    let query: Record<string, string | number> | null = { items_count: 7 };
    while (query !== null) {
      const page = await get('/blocks', query);
      expect(page.status).toBe(200);
      seen.push(...page.body.items);
      query = page.body.next_page_params;
    }
    const newestFirst = [...blocks].reverse();
    expect(seen.map((b) => [b.hash, b.height, b.miner.hash.toLowerCase(), b.transactions_count])).toEqual(
      newestFirst.map((b) => [b.hash, Number(b.number), b.miner.toLowerCase(), b.transactions.length]),
    );
    const latest = await get('/main-page/blocks');
    expect(latest.body.map((b: { hash: string }) => b.hash)).toEqual(newestFirst.slice(0, 4).map((b) => b.hash));
    // a chain without reorgs or uncles lists none
    for (const type of ['reorg', 'uncle']) expect((await get('/blocks', { type })).body).toEqual({ items: [], next_page_params: null });
  });

  it('a token address carries the token object of /tokens/{hash}', async () => {
    for (const token of [scenario.erc20, scenario.erc721, scenario.erc1155]) {
      const [address, tokenObject] = await Promise.all([get(`/addresses/${token}`), get(`/tokens/${token}`)]);
      expect(address.body.token).toEqual(tokenObject.body);
      expect(address.body.is_contract).toBe(true);
      expect(address.body.hash).toBe(tokenObject.body.address_hash);
    }
    const plain = await get(`/addresses/${BUSY_MINER}`);
    expect(plain.body.token).toBeNull();
  });

  it('an address we hold nothing of: 200 with nothing claimed', async () => {
    const [address, tabs, counters] = await Promise.all([get(`/addresses/${NOBODY}`), get(`/addresses/${NOBODY}/tabs-counters`), get(`/addresses/${NOBODY}/counters`)]);
    expect(address.status).toBe(200);
    expect(address.body).toMatchObject({ has_validated_blocks: false, has_tokens: false, token: null, is_verified: null, coin_balance: null });
    expect(tabs.body).toMatchObject({ validations_count: 0, token_balances_count: 0, transactions_count: null });
    expect(counters.body).toEqual({ transactions_count: null, token_transfers_count: null, gas_usage_count: null, validations_count: '0' });
  });

  it('stats from the node\'s blocks', async () => {
    const res = await get('/stats');
    expect(res.status).toBe(200);
    const head = blocks.length - 1;
    expect(res.body.total_blocks).toBe(String(head + 1));
    // every anvil block is of the last 24 hours
    expect(res.body.transactions_today).toBe(String(blocks.reduce((n, b) => n + b.transactions.length, 0)));
    expect(res.body.gas_used_today).toBe(blocks.reduce((n, b) => n + b.gasUsed, 0n).toString());
    const recent = blocks.slice(-101);
    const expectedMs = (Number(recent.at(-1)!.timestamp - recent[0]!.timestamp) / (recent.length - 1)) * 1000;
    expect(res.body.average_block_time).toBe(Math.round(expectedMs));
    const utilization = blocks.slice(-100).reduce((s, b) => s + Number(b.gasUsed) / Number(b.gasLimit), 0) / 100 * 100;
    expect(res.body.network_utilization_percentage).toBeCloseTo(utilization, 9);
    expect(res.body.coin_price).toBeNull();
  });

  it('indexing status: caught up with the node', async () => {
    const res = await get('/main-page/indexing-status');
    expect(res.body).toEqual({ finished_indexing: true, finished_indexing_blocks: true, indexed_blocks_ratio: '1.00', indexed_internal_transactions_ratio: null });
  });

  it('backend version: this package\'s', async () => {
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
    const res = await get('/config/backend-version');
    expect(res.body).toEqual({ backend_version: `${pkg.name} v${pkg.version}` });
  });

  it('same keys, limits and error bodies as the other routes', async () => {
    for (const p of [`/addresses/${restricted}`, `/addresses/${restricted}/tabs-counters`, `/addresses/${restricted}/counters`]) {
      expect(await get(p)).toMatchObject({ status: 403, body: { message: 'Restricted access' } });
      expect((await get(p, { key: SECRET })).status).toBe(200);
    }
    for (const p of ['/addresses/0x123', '/addresses/0x123/tabs-counters', '/addresses/0x123/counters']) {
      const res = await get(p);
      expect(res.status).toBe(422);
      expect(res.body.errors[0].source).toEqual({ pointer: '/address_hash_param' });
    }
    for (const p of [`/addresses/${NOBODY}`, '/stats', '/config/backend-version', '/main-page/indexing-status']) {
      const noKey = await api.app.inject({ method: 'GET', url: `/${DEVNET_CHAIN_ID}/api/v2${p}` });
      expect(noKey.statusCode, p).toBe(401);
      expect(JSON.parse(noKey.body)).toEqual({ message: 'Invalid or missing API key' });
      expect(await api.get(`/999/api/v2${p}`)).toMatchObject({ status: 404, body: { message: 'Not found' } });
      const extra = await get(p, { foo: 1 });
      expect(extra.status, p).toBe(422);
      expect(extra.body.errors[0].detail).toBe('Unexpected field: foo');
      expect((await get(p, { key: 'k'.repeat(257) })).status).toBe(422);
    }
  });

  it('OpenAPI documents the frontend\'s operations', async () => {
    const doc = JSON.parse((await api.app.inject({ method: 'GET', url: '/api/v2/openapi.json' })).body);
    for (const p of [
      '/{chain_id}/api/v2/addresses/{address_hash_param}',
      '/{chain_id}/api/v2/addresses/{address_hash_param}/tabs-counters',
      '/{chain_id}/api/v2/addresses/{address_hash_param}/counters',
      '/{chain_id}/api/v2/stats',
      '/{chain_id}/api/v2/config/backend-version',
      '/{chain_id}/api/v2/main-page/indexing-status',
      '/{chain_id}/api/v2/main-page/blocks',
      '/{chain_id}/api/v2/blocks',
    ]) {
      const op = doc.paths[p]?.get;
      expect(op, p).toBeDefined();
      expect(Object.keys(op.responses).sort(), p).toEqual(['200', '401', '403', '404', '422', '429', '503']);
    }
  });

  it('keyed clients are unaffected: the test key still works with an Origin header', async () => {
    const res = await api.app.inject({ method: 'GET', url: `/${DEVNET_CHAIN_ID}/api/v2/stats?apikey=${TEST_KEY}`, headers: { origin: 'https://elsewhere.example' } });
    expect(res.statusCode).toBe(200);
  });
});

describe('indexing status while behind the head', () => {
  const chain = (indexed: bigint | null, head: bigint | null): ChainStatus => ({
    chainId: 1, elasticity: 2, blobSchedule: null, indexedBlock: indexed, headBlock: head, polledAt: null, addedAt: null, failingSince: null, failure: null, backfilling: false,
  });
  it('ratio of blocks from the first indexed one, floored to hundredths', () => {
    // blocks 100..199 of 100..399: a third
    expect(indexingStatusView(chain(199n, 399n), 100n)).toEqual({
      finished_indexing: false, finished_indexing_blocks: false, indexed_blocks_ratio: '0.33', indexed_internal_transactions_ratio: null,
    });
    expect(indexingStatusView(chain(null, 10n), null).indexed_blocks_ratio).toBe('0.00');
    expect(indexingStatusView(chain(10n, null), 0n).finished_indexing).toBe(false);
  });
});
