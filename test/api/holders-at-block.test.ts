/**
 * GET /tokens/{hash}/holders?block_number=N and /counters?block_number=N on a real server over
 * an anvil chain indexed while it grows, both engines. Ground truth is the node at block N:
 * balanceOf / balanceOf(holder, id) of every touched holding, totalSupply(). Paging goes on
 * while new blocks are being indexed and must return each holder exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import { generateActivity } from '../../src/devnet/scenario.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { DEVNET_CHAIN_ID as CHAIN, startIndexer, type RunningIndexer } from '../support/indexer-harness.js';
import { holderCounts, servedBalances, sortedEntries, truthClient } from '../support/ground-truth.js';
import { buildHistoryChain, spreadBlocks, totalSupplyAt, truthAt, type HistoryChain } from '../support/history-truth.js';
import { pruneHistory } from '../../src/indexer/history-horizon.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createExplorerClient } from '../../src/sdk/index.js';
import { exportList } from '../../src/cli/commands/export.js';
import { TEST_KEY } from '../support/api.js';
import { COUNT_GATE, countGate } from '../../src/db/queries/read-gate.js';

const holdersPath = (token: string) => `/${CHAIN}/api/v2/tokens/${token}/holders`;

describe.each(await availableEngines())('holders at a past block on %s', (engine) => {
  let node: TestNode;
  let truth: ReturnType<typeof truthClient>;
  let chain: HistoryChain;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let run: RunningIndexer;
  let api: TestApi;
  let head: bigint;
  let tokens: string[];

  /** Every page at `block`, `size` per page; each page's next_page_params must carry the block. */
  async function pagesAt(token: string, block: bigint, size: number, between: () => Promise<void> = async () => undefined) {
    const items: any[] = [];
    let query: Record<string, string | number> = { block_number: block.toString(), items_count: size };
    for (let page = 0; page < 1_000; page++) {
      const res = await api.get(holdersPath(token), query);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      items.push(...res.body.items);
      if (res.body.next_page_params === null) return items;
      expect(res.body.next_page_params.block_number).toBe(Number(block));
      query = res.body.next_page_params;
      await between();
    }
    throw new Error('paging did not end');
  }

  beforeAll(async () => {
    [node, database] = await Promise.all([startTestNode(), freshDatabase(engine)]);
    truth = truthClient(node.url);
    chain = await buildHistoryChain(node, 'api-history');
    run = await startIndexer(database.db, node.url, { indexer: { minBatchBlocks: 3, maxBatchBlocks: 7 } });
    head = await run.caughtUp();
    api = await startTestApi(engine, { db: database.db });
    const s = chain.scenario;
    tokens = [s.erc20, s.erc721, s.erc1155, s.weth, s.clone, s.proxy, chain.burnable];
  }, 180_000);
  afterAll(async () => {
    await run?.stop();
    await api?.close();
    await database?.drop();
    await node?.stop();
  });

  it('serves every holder at five past blocks as balanceOf at that block, counts and ERC-20 supply too', async () => {
    for (const block of spreadBlocks(8n, head - 1n, 5)) {
      const node = await truthAt(truth, block);
      for (const token of tokens) {
        const key = token.toLowerCase();
        const counters = await api.get(`/${CHAIN}/api/v2/tokens/${token}/counters`, { block_number: block.toString() });
        const expected = new Map([...node.balances].filter(([k]) => k.startsWith(`${key}|`)));
        if (counters.status === 404) {
          // only a token whose first event is after the block
          expect(expected.size, `${token} at ${block}`).toBe(0);
          expect((await api.get(holdersPath(token), { block_number: block.toString() })).status).toBe(404);
          continue;
        }
        const items = await pagesAt(token, block, 4);
        expect(sortedEntries(servedBalances(key, items)), `${token} at ${block}`).toEqual(sortedEntries(expected));
        expect(counters.body.token_holders_count, `${token} holders at ${block}`).toBe(String(holderCounts(expected).get(key) ?? 0));
        const s = chain.scenario;
        if ([s.erc20, s.weth, s.clone, s.proxy, chain.burnable].includes(token as `0x${string}`)) {
          expect(counters.body.total_supply, `${token} supply at ${block}`).toBe((await totalSupplyAt(truth, token as `0x${string}`, block)).toString());
        } else {
          expect(counters.body.total_supply).toBeUndefined();
        }
      }
    }
  });

  it('pages one snapshot while new blocks are indexed: each holder exactly once, values of that block', async () => {
    const block = head - 3n;
    const activity = generateActivity(node, chain.scenario, { maxBlocks: 12, blocksPerSecond: 8, txsPerBlock: 6, seed: 'while-paging' });
    const indexedBefore = await run.caughtUp();
    const items = await pagesAt(chain.scenario.erc20, block, 2, () => new Promise((r) => setTimeout(r, 60)));
    await activity.done;
    const indexedAfter = await run.caughtUp();
    expect(indexedAfter).toBeGreaterThan(indexedBefore);
    const holders = items.map((i) => i.address.hash);
    expect(new Set(holders).size).toBe(holders.length);
    const expected = new Map([...(await truthAt(truth, block)).balances].filter(([k]) => k.startsWith(`${chain.scenario.erc20.toLowerCase()}|`)));
    expect(sortedEntries(servedBalances(chain.scenario.erc20.toLowerCase(), items))).toEqual(sortedEntries(expected));
    // ERC-1155: token_id is the third paging value, carried with the block
    const multi = await pagesAt(chain.scenario.erc1155, block, 1);
    const keys = multi.map((i) => `${i.address.hash}|${i.token_id}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('without block_number the list is today\'s, and a past block that is today equals it', async () => {
    const tip = await run.caughtUp();
    const live = await api.get(holdersPath(chain.scenario.erc20), { items_count: 50 });
    const atTip = await api.get(holdersPath(chain.scenario.erc20), { items_count: 50, block_number: tip.toString() });
    expect(live.body.next_page_params?.block_number).toBeUndefined();
    expect(atTip.body.items).toEqual(live.body.items);
  });

  it('the SDK and `explorer export --block` read the same snapshot: every holder at N as the node has it', async () => {
    await api.app.listen({ host: '127.0.0.1', port: 0 });
    const address = api.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    const baseUrl = `http://127.0.0.1:${address.port}`;
    const block = head - 5n;
    const token = chain.scenario.erc1155;
    const expected = new Map([...(await truthAt(truth, block)).balances].filter(([k]) => k.startsWith(`${token.toLowerCase()}|`)));
    expect(expected.size).toBeGreaterThan(3);

    const sdk = createExplorerClient({ baseUrl, apiKey: TEST_KEY });
    const viaSdk = [];
    for await (const item of sdk.iterateHolders(CHAIN, token, { blockNumber: block, itemsCount: 3 })) viaSdk.push(item);
    expect(sortedEntries(servedBalances(token.toLowerCase(), viaSdk))).toEqual(sortedEntries(expected));
    const counters = await sdk.tokenCounters(CHAIN, token, { blockNumber: block });
    expect(counters.token_holders_count).toBe(String(holderCounts(expected).get(token.toLowerCase())));

    const dir = mkdtempSync(join(tmpdir(), 'holders-at-block-'));
    try {
      const out = join(dir, 'snapshot.jsonl');
      const result = await exportList('holders', { chain: String(CHAIN), target: token, url: baseUrl, apiKey: TEST_KEY, pageSize: 2, out, block });
      expect(result.complete).toBe(true);
      const exported = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(sortedEntries(servedBalances(token.toLowerCase(), exported))).toEqual(sortedEntries(expected));
      // a resume of this file at another block would mix two snapshots: refused
      await expect(exportList('holders', { chain: String(CHAIN), target: token, url: baseUrl, apiKey: TEST_KEY, pageSize: 2, out, block: block - 1n, resume: true })).rejects.toThrow(
        /belongs to another export/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a count beyond the count gate as busy (503 with Retry-After) on both APIs, and counts once there is room', async () => {
    const token = chain.scenario.erc20;
    const block = (head - 1n).toString();
    // nothing kept for this block: the request must count
    await database.db.query('DELETE FROM holder_snapshots');
    let release!: () => void;
    const holding = new Promise<void>((resolve) => (release = resolve));
    const held = Array.from({ length: COUNT_GATE.concurrency + COUNT_GATE.waiting }, (_, i) => countGate.run({}, `held ${i}`, () => holding));
    try {
      const busy = await api.get(`/${CHAIN}/api/v2/tokens/${token}/counters`, { block_number: block });
      expect(busy.status).toBe(503);
      expect(busy.headers['retry-after']).toBe('5');
      expect(busy.body).toEqual({ message: 'Service unavailable' });
      const envelope = await api.get(`/${CHAIN}/api`, { module: 'token', action: 'tokenholdercount', contractaddress: token, blockno: block });
      expect(envelope.status).toBe(503);
      expect(envelope.headers['retry-after']).toBe('5');
      expect(envelope.body).toEqual({ status: '0', message: 'NOTOK', result: 'Error! Service unavailable' });
      // a page at the block needs no count: it is served meanwhile
      expect((await api.get(holdersPath(token), { block_number: block })).status).toBe(200);
    } finally {
      release();
      await Promise.all(held);
    }
    const counted = await api.get(`/${CHAIN}/api/v2/tokens/${token}/counters`, { block_number: block });
    expect(counted.status).toBe(200);
    const key = token.toLowerCase();
    const atBlock = new Map([...(await truthAt(truth, BigInt(block))).balances].filter(([k]) => k.startsWith(`${key}|`)));
    expect(counted.body.token_holders_count).toBe(String(holderCounts(atBlock).get(key) ?? 0));
  });

  it('refuses blocks it cannot answer: above the index 422, before the token 404, below the horizon 422', async () => {
    const tip = await run.caughtUp();
    const beyond = await api.get(holdersPath(chain.scenario.erc20), { block_number: (tip + 1000n).toString() });
    expect(beyond.status).toBe(422);
    expect(beyond.body).toEqual({
      errors: [{ title: 'Invalid value', source: { pointer: '/block_number' }, detail: `${tip + 1000n} is larger than the indexed block ${tip}` }],
    });
    const countersBeyond = await api.get(`/${CHAIN}/api/v2/tokens/${chain.scenario.erc20}/counters`, { block_number: (tip + 1n).toString() });
    expect(countersBeyond.status).toBe(422);
    // the burnable token was deployed after the scenario: at block 2 it did not exist
    const code = await truth.getCode({ address: chain.burnable, blockNumber: 2n });
    expect(code ?? '0x').toBe('0x');
    expect((await api.get(holdersPath(chain.burnable), { block_number: '2' })).status).toBe(404);
    // an unknown token is a 404 at any block, as without one: above the index too
    for (const block of ['2', (tip + 1000n).toString()]) {
      const unknown = await api.get(holdersPath(getAddress(`0x${'ab'.repeat(20)}`)), { block_number: block });
      expect(unknown.status, block).toBe(404);
      expect(unknown.body).toEqual({ message: 'Not found' });
    }
    // the Etherscan-style list and count refuse an empty blockno instead of answering for today
    for (const action of ['tokenholderlist', 'tokenholdercount']) {
      const empty = await api.get(`/${CHAIN}/api`, { module: 'token', action, contractaddress: chain.scenario.erc20, blockno: '' });
      expect(empty.body, action).toEqual({ status: '0', message: 'NOTOK', result: 'Error! Invalid block number' });
    }
    for (const bad of ['-1', 'x', '1.5', '9'.repeat(30)]) {
      const res = await api.get(holdersPath(chain.scenario.erc20), { block_number: bad });
      expect(res.status, bad).toBe(422);
      expect(res.body.errors[0].source.pointer).toBe('/block_number');
    }
    await pruneHistory(database.db, CHAIN, 10n);
    const below = await api.get(holdersPath(chain.scenario.erc20), { block_number: '9' });
    expect(below.status).toBe(422);
    expect(below.body.errors[0].detail).toBe('9 is below the kept balance history, which starts at block 10');
    expect((await api.get(holdersPath(chain.scenario.erc20), { block_number: '10' })).status).toBe(200);
  });
});
