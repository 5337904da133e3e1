/**
 * The demo chain (ERC-20 with skewed holders, ERC-721, ERC-1155, WETH9, an EIP-1167 clone, an
 * EIP-1967 proxy, blocks from several miners) indexed from genesis: everything the API serves
 * must be what the node says at the indexed head.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress, type Hex } from 'viem';
import { deployScenario, generateActivity, type DemoScenario } from '../../src/devnet/scenario.js';
import { findToken } from '../../src/db/queries/holders.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { DEVNET_CHAIN_ID as CHAIN, enrichmentDone, startIndexer } from '../support/indexer-harness.js';
import {
  ZERO_ADDRESS,
  expectedFees,
  holderCounts,
  nodeBalances,
  nodeBlocks,
  nodeTransferCounts,
  servedBalances,
  servedBlocksValidated,
  servedHolders,
  servedInstanceHolders,
  sortedEntries,
  tokenMetadata,
  truthClient,
} from '../support/ground-truth.js';

let node: TestNode;
let scenario: DemoScenario;
let head: bigint;
let truth: ReturnType<typeof truthClient>;
/** non-zero balanceOf at the head of everything the token events touched */
let balances: Map<string, bigint>;
let chainBlocks: Awaited<ReturnType<typeof nodeBlocks>>;
let tokenTypes: Map<Hex, string>;

beforeAll(async () => {
  node = await startTestNode();
  scenario = await deployScenario(node, { holders: 120 });
  const activity = generateActivity(node, scenario, { miners: 4, maxBlocks: 40, blocksPerSecond: 1_000, seed: 'balances' });
  const stats = await activity.done;
  expect(stats.blocksByMiner.size).toBeGreaterThan(1);
  head = await node.public.getBlockNumber();
  truth = truthClient(node.url);
  balances = await nodeBalances(truth, head);
  chainBlocks = await nodeBlocks(truth, 0n, head);
  const lower = (a: string) => a.toLowerCase() as Hex;
  tokenTypes = new Map([
    ...[scenario.erc20, scenario.weth, scenario.clone, scenario.proxy].map((t) => [lower(t), 'ERC-20'] as const),
    [lower(scenario.erc721), 'ERC-721'],
    [lower(scenario.erc1155), 'ERC-1155'],
  ]);
});
afterAll(() => node?.stop());

describe.each(await availableEngines())('the demo chain indexed from genesis on %s', (engine) => {
  let api: TestApi;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const fresh = await freshDatabase(engine);
    drop = fresh.drop;
    const run = await startIndexer(fresh.db, node.url, { enrich: true });
    try {
      expect(await run.caughtUp()).toBe(head);
      await enrichmentDone(fresh.db);
    } finally {
      await run.stop();
    }
    expect(run.logger.errors()).toEqual([]);
    api = await startTestApi(engine, { db: fresh.db });
  });
  afterAll(async () => {
    await api?.close();
    await drop?.();
  });

  it('serves exactly the non-zero balanceOf of every holder of every token, over all pages', async () => {
    const served = new Map<string, bigint>();
    for (const token of tokenTypes.keys()) {
      const items = await servedHolders(api, CHAIN, token);
      expect(items.some((i) => i.address.hash.toLowerCase() === ZERO_ADDRESS)).toBe(false);
      // richest first, as the reference orders them
      const values = items.map((i) => BigInt(i.value));
      expect(values).toEqual([...values].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)));
      for (const [key, value] of servedBalances(token, items)) {
        expect(served.has(key), `${key} served twice`).toBe(false);
        served.set(key, value);
      }
    }
    expect(sortedEntries(served)).toEqual(sortedEntries(balances));
    // the ERC-20 has more holders than one page, so paging itself was exercised
    expect([...balances.keys()].filter((k) => k.startsWith(scenario.erc20.toLowerCase())).length).toBeGreaterThan(100);
  });

  it('serves each ERC-1155 id\'s holders as the node\'s balanceOf(holder, id), paged two at a time', async () => {
    const token = scenario.erc1155.toLowerCase();
    let paged = false;
    for (const id of scenario.erc1155Ids) {
      const expected = new Map([...balances].filter(([key]) => key.startsWith(`${token}|`) && key.endsWith(`|${id}`)));
      const items = await servedInstanceHolders(api, CHAIN, scenario.erc1155, id, { items_count: 2 });
      paged ||= items.length > 2;
      expect(items.every((i) => i.token_id === id.toString())).toBe(true);
      // richest first, then by address descending
      const order = items.map((i) => [BigInt(i.value), i.address.hash.toLowerCase()] as const);
      expect(order).toEqual([...order].sort(([va, ha], [vb, hb]) => (va !== vb ? (va < vb ? 1 : -1) : ha < hb ? 1 : ha > hb ? -1 : 0)));
      const served = servedBalances(token, items);
      expect(served.size, `id ${id}: a holder served twice`).toBe(items.length);
      expect(sortedEntries(served), `id ${id}`).toEqual(sortedEntries(expected));
    }
    expect(paged, 'some id has more than one page of holders').toBe(true);
    // an id nobody holds is an empty page; a token of another standard, or none, is a 404
    const nobody = await api.get(`/${CHAIN}/api/v2/tokens/${scenario.erc1155}/instances/999999/holders`);
    expect(nobody.status).toBe(200);
    expect(nobody.body).toEqual({ items: [], next_page_params: null });
    for (const other of [scenario.erc20, scenario.erc721, `0x${'ab'.repeat(20)}`]) {
      const res = await api.get(`/${CHAIN}/api/v2/tokens/${other}/instances/1/holders`);
      expect(res.status, other).toBe(404);
      expect(res.body).toEqual({ message: 'Not found' });
    }
    const bad = await api.get(`/${CHAIN}/api/v2/tokens/${scenario.erc1155}/instances/0x01/holders`);
    expect(bad.status).toBe(422);
  });

  it('keeps each token\'s holder count equal to its distinct holders', async () => {
    const expected = holderCounts(balances);
    for (const token of tokenTypes.keys()) {
      const row = await findToken(api.db, CHAIN, token);
      expect(row?.holderCount, token).toBe(BigInt(expected.get(token) ?? 0));
    }
  });

  it('serves each token\'s transfers as the count of its transfer events in the node\'s logs', async () => {
    const expected = await nodeTransferCounts(truth, head, [scenario.weth]);
    for (const token of tokenTypes.keys()) {
      const { status, body } = await api.get(`/${CHAIN}/api/v2/tokens/${token}/counters`);
      expect(status).toBe(200);
      expect(body.transfers_count, token).toBe((expected.get(token) ?? 0n).toString());
    }
    // sanity: every token moved
    expect([...tokenTypes.keys()].every((t) => (expected.get(t) ?? 0n) > 0n)).toBe(true);
  });

  it('lists for every miner exactly the node\'s blocks with that miner, newest first', async () => {
    const byMiner = new Map<string, { height: number; hash: string }[]>();
    for (const { block } of chainBlocks) {
      const list = byMiner.get(block.miner.toLowerCase()) ?? [];
      list.unshift({ height: Number(block.number), hash: block.hash });
      byMiner.set(block.miner.toLowerCase(), list);
    }
    expect(byMiner.size).toBeGreaterThan(2);
    for (const [miner, blocks] of byMiner) {
      const items = await servedBlocksValidated(api, CHAIN, miner);
      expect(items.map((b) => ({ height: b.height, hash: b.hash })), miner).toEqual(blocks);
      expect(new Set(items.map((b) => b.type))).toEqual(new Set(['block']));
      expect(new Set(items.map((b) => b.miner.hash))).toEqual(new Set([getAddress(miner)]));
    }
  });

  it('serves block fields and fees recomputed from the node\'s blocks and receipts', async () => {
    const served = new Map<string, any>();
    for (const miner of new Set(chainBlocks.map(({ block }) => block.miner))) {
      for (const item of await servedBlocksValidated(api, CHAIN, miner)) served.set(item.hash, item);
    }
    const withTransactions = chainBlocks.filter(({ block }) => block.transactions.length > 1);
    expect(withTransactions.length).toBeGreaterThan(10);
    for (const fetched of chainBlocks) {
      const { block } = fetched;
      const item = served.get(block.hash);
      const fees = expectedFees(fetched);
      expect(item, `block ${block.number}`).toMatchObject({
        height: Number(block.number),
        parent_hash: block.parentHash,
        gas_used: block.gasUsed.toString(),
        gas_limit: block.gasLimit.toString(),
        base_fee_per_gas: block.baseFeePerGas?.toString() ?? null,
        size: Number(block.size),
        transactions_count: block.transactions.length,
        timestamp: new Date(Number(block.timestamp) * 1000).toISOString().replace('.000Z', '.000000Z'),
        ...fees,
        // anvil pays no block reward: the miner's reward is the priority fee
        rewards: [{ reward: fees.priority_fee, type: 'validator', address_hash: getAddress(block.miner) }],
      });
    }
  });

  it('enriches token rows with their type and the metadata their contracts report', async () => {
    for (const [token, type] of tokenTypes) {
      const expected = await tokenMetadata(truth, token);
      const row = await findToken(api.db, CHAIN, token);
      expect(row, token).toMatchObject({ type, ...expected });
    }
    // sanity: the ground truth above is not all nulls
    expect(await tokenMetadata(truth, scenario.clone)).toEqual({ name: 'Clone Coin', symbol: 'CLONE', decimals: 18 });
  });

  it('knows contracts from EOAs and both proxies\' implementations', async () => {
    const rows = await api.db.query<{ hash: string; is_contract: boolean; proxy_type: string | null; implementations: unknown }>(
      "SELECT '0x' || encode(hash, 'hex') AS hash, is_contract, proxy_type, implementations FROM addresses WHERE chain_id = $1",
      [CHAIN],
    );
    expect(rows.length).toBeGreaterThan(100);
    const codes = await Promise.all(rows.map((r) => truth.getCode({ address: r.hash as Hex, blockNumber: head })));
    rows.forEach((r, i) => expect(r.is_contract, r.hash).toBe((codes[i]?.length ?? 2) > 2));
    expect(rows.filter((r) => r.is_contract).length).toBeGreaterThanOrEqual(tokenTypes.size);
    const implementations = (r: (typeof rows)[number] | undefined) =>
      (typeof r?.implementations === 'string' ? JSON.parse(r.implementations) : r?.implementations) as { address_hash: string }[];
    const find = (a: string) => rows.find((r) => r.hash === a.toLowerCase());
    const clone = find(scenario.clone);
    expect(clone?.proxy_type).toBe('eip1167');
    expect(implementations(clone).map((i) => i.address_hash)).toEqual([scenario.implementation.toLowerCase()]);
    const proxy = find(scenario.proxy);
    expect(proxy?.proxy_type).toBe('eip1967');
    expect(implementations(proxy).map((i) => i.address_hash)).toEqual([scenario.implementation.toLowerCase()]);
    expect(find(scenario.erc20)?.proxy_type).toBeNull();
    // what the API shows of a holder agrees with the table
    const { body } = await api.get(`/${CHAIN}/api/v2/tokens/${scenario.erc20}/holders`, { items_count: 1 });
    expect(body.items[0].address.is_contract).toBe(find(body.items[0].address.hash)?.is_contract);
  });
});
