/**
 * Two client libraries of the Etherscan API that nobody here wrote, pointed at a real server
 * over an indexed anvil chain, on both engines and every URL form, with every answer checked
 * against the node (balanceOf, totalSupply, name/symbol/decimals, its blocks, miners, times and
 * receipts), never against our own output:
 * - `etherscan-api` 12.1.0, the newest release of that package (its `latest` tag, 100.0.0, does
 *   not install: its postinstall script needs tsc and browserify). It speaks the V2 form only
 *   (`https://api.etherscan.io/v2/api?…&apikey=…&chainid=N`) and takes a custom transport, which
 *   here sends the URL it built to our server, on each of our forms: the path and query are
 *   the client's own, only the origin (and for the other forms the path) changes, as a proxy
 *   or DNS entry in front of us would. It has tokenbalance, getminedblocks, getblockreward,
 *   getblocknobytime and tokensupply.
 * - ethers 6 `EtherscanProvider`, whose `fetch(module, params)` calls any action: the rest.
 *   Its documented way to change the endpoint is to override getUrl, done here the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { init, type EtherscanResponse } from 'etherscan-api';
import { EtherscanProvider } from 'ethers';
import { erc20Abi, erc721Abi, type Address, type PublicClient } from 'viem';
import type { Database } from '../../src/db/client.js';
import type { Hex } from '../../src/db/rows.js';
import { contracts } from '../../src/devnet/artifacts.js';
import { deployScenario, type DemoScenario } from '../../src/devnet/scenario.js';
import { deriveAddress } from '../../src/devnet/random.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { enrichmentDone, startIndexer, type RunningIndexer } from '../support/indexer-harness.js';
import { listen, startTestApi, TEST_KEY, type TestApi } from '../support/api.js';
import { expectedFees, nodeBalances, nodeBlocks, tokenMetadata, truthClient, type NodeBlock } from '../support/ground-truth.js';
import { byHoldersOrder } from '../support/seed.js';

// ethers knows Etherscan's chains only; anvil runs as chain 1 so both clients can name it
const CHAIN = 1;
const MINERS = [1, 2, 3].map((i) => deriveAddress('etherscan-clients:miner', i));

/** How each URL form is reached from the V2 URL a client builds. */
const FORMS = {
  'v2 (/v2/api?chainid=1)': '/v2/api',
  'v1 with chainid (/api?chainid=1)': '/api',
  'chain in the path (/1/api)': `/${CHAIN}/api`,
} as const;
type Form = keyof typeof FORMS;

const redirect = (base: string, form: Form) => (clientUrl: string) => {
  const url = new URL(clientUrl);
  expect(url.origin).toBe('https://api.etherscan.io');
  expect(url.pathname).toBe('/v2/api');
  return `${base}${FORMS[form]}${url.search}`;
};

/** etherscan-api's transport, sending the URL it built where `to` says. */
const transport = (to: (url: string) => string) => async (url: string) => (await (await fetch(to(url))).json()) as EtherscanResponse<unknown>;

function etherscanApi(base: string, form: Form) {
  const to = redirect(base, form);
  return init(TEST_KEY, CHAIN, 10_000, transport(to));
}

/** EtherscanProvider with its URL moved to our server; `fetch` returns `result` or throws. */
class OurEtherscan extends EtherscanProvider {
  constructor(private readonly to: (url: string) => string) {
    super(CHAIN, TEST_KEY);
  }
  override getUrl(module: string, params: Record<string, string>): string {
    return this.to(super.getUrl(module, params));
  }
}

let node: TestNode;
let truth: PublicClient;
let scenario: DemoScenario;
/** a token whose supply changes after the indexer read its metadata */
let minted: Address;

async function mintAndBurn(round: number): Promise<void> {
  const [a, b] = scenario.holders;
  await node.write({ address: minted, abi: contracts.TestERC20.abi, functionName: 'mint', args: [a!, 10n ** 21n * BigInt(round + 1)] });
  await node.write({ address: minted, abi: contracts.TestERC20.abi, functionName: 'burn', args: [b!, 10n ** 18n] });
}

beforeAll(async () => {
  node = await startTestNode({ chainId: CHAIN });
  truth = truthClient(node.url);
  scenario = await deployScenario(node, { holders: 14, nfts: 8, seed: 'etherscan-clients' });
  ({ address: minted } = await node.deploy(contracts.TestERC20, ['Minted', 'MNT', 6]));
  for (const holder of scenario.holders.slice(0, 2)) {
    await node.write({ address: minted, abi: contracts.TestERC20.abi, functionName: 'mint', args: [holder, 5n * 10n ** 18n] });
  }
  // blocks from three miners, with transactions (priority fees) and without
  for (const [i, miner] of MINERS.entries()) {
    await node.setCoinbase(miner);
    await node.write({ address: scenario.erc20, abi: contracts.TestERC20.abi, functionName: 'transfer', args: [scenario.holders[i + 3]!, 10n ** 15n], from: scenario.holders[0] });
    await node.mine(i + 1);
  }
}, 240_000);
afterAll(() => node?.stop());

/** Ground truth, read from the node once the index is at its head. */
interface Truth {
  head: bigint;
  balances: Map<string, bigint>;
  blocks: Array<{ block: NodeBlock; reward: bigint }>;
}

async function readTruth(head: bigint): Promise<Truth> {
  const blocks = (await nodeBlocks(truth, 0n, head)).map((b) => ({ block: b.block, reward: BigInt(expectedFees(b).priority_fee) }));
  return { head, balances: await nodeBalances(truth, head), blocks };
}

const lower = (a: string) => a.toLowerCase() as Hex;

/** Every row of a paged list, read from page 1 until a page comes back empty. */
async function everyPage(read: (page: number) => Promise<unknown>): Promise<unknown[]> {
  const rows: unknown[] = [];
  for (let page = 1; ; page++) {
    const got = (await read(page)) as unknown[];
    if (got.length === 0) return rows;
    rows.push(...got);
  }
}
const holdersOf = (t: Truth, token: string) =>
  [...t.balances]
    .filter(([key]) => key.startsWith(`${lower(token)}|`))
    .map(([key, value]) => ({ holder: key.split('|')[1]!, value }))
    .sort(byHoldersOrder);

describe.each(await availableEngines())('Etherscan clients against a real server on %s', (engine) => {
  let db: Database;
  let drop: () => Promise<void>;
  let api: TestApi;
  let base: string;
  let indexer: RunningIndexer;
  let t: Truth;

  beforeAll(async () => {
    ({ db, drop } = await freshDatabase(engine));
    indexer = await startIndexer(db, node.url, { enrich: true, chain: { chainId: CHAIN } });
    await indexer.caughtUp();
    await enrichmentDone(db, CHAIN);
    // the supply changes after the metadata (totalSupply included) was read
    await mintAndBurn(engine === 'pglite' ? 0 : 1);
    const head = await indexer.caughtUp();
    await indexer.stop();
    t = await readTruth(head);
    api = await startTestApi(engine, { db });
    base = await listen(api.app);
  }, 240_000);
  afterAll(async () => {
    await indexer?.stop();
    await api?.close();
    await drop?.();
  });

  describe.each(Object.keys(FORMS) as Form[])('%s', (form) => {
    const clients = () => ({ es: etherscanApi(base, form), ethers: new OurEtherscan(redirect(base, form)) });

    it('tokenbalance (etherscan-api and ethers): balanceOf of every holder of the ERC-20s and the ERC-721', async () => {
      const { es, ethers } = clients();
      const tokens = [scenario.erc20, scenario.weth, scenario.proxy, minted, scenario.erc721];
      for (const token of tokens) {
        for (const holder of scenario.holders) {
          const expected = (await truth.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder], blockNumber: t.head })).toString();
          expect((await es.account.tokenbalance(holder, undefined, token)).result, `${token} ${holder}`).toBe(expected);
        }
        const holder = scenario.holders[1]!;
        const expected = await truth.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder], blockNumber: t.head });
        expect(await ethers.fetch('account', { action: 'tokenbalance', contractaddress: token, address: holder, tag: 'latest' })).toBe(expected.toString());
      }
    });

    it('tokensupply (etherscan-api) and tokeninfo (ethers): totalSupply, name, symbol, decimals from the contract', async () => {
      const { es, ethers } = clients();
      for (const token of [scenario.erc20, scenario.weth, scenario.proxy, scenario.clone, minted]) {
        const supply = await truth.readContract({ address: token, abi: erc20Abi, functionName: 'totalSupply', blockNumber: t.head });
        expect((await es.stats.tokensupply(undefined, token)).result, token).toBe(supply.toString());
        const meta = await tokenMetadata(truth, token);
        expect(await ethers.fetch('token', { action: 'tokeninfo', contractaddress: token })).toEqual([
          expect.objectContaining({
            contractAddress: lower(token),
            tokenName: meta.name,
            symbol: meta.symbol,
            divisor: String(meta.decimals),
            tokenType: 'ERC20',
            totalSupply: supply.toString(),
          }),
        ]);
      }
      expect(await ethers.fetch('stats', { action: 'tokensupply', contractaddress: minted })).toBe(
        (await truth.readContract({ address: minted, abi: erc20Abi, functionName: 'totalSupply', blockNumber: t.head })).toString(),
      );
    });

    it('tokenholderlist and tokenholdercount (ethers): every holder with balanceOf > 0, richest first, page by page', async () => {
      const { ethers } = clients();
      for (const token of [scenario.erc20, minted, scenario.erc721]) {
        const expected = holdersOf(t, token).map((h) => ({ TokenHolderAddress: h.holder, TokenHolderQuantity: h.value.toString() }));
        expect(expected.length).toBeGreaterThan(1);
        const pages = await everyPage((page) => ethers.fetch('token', { action: 'tokenholderlist', contractaddress: token, page, offset: 3 }));
        expect(pages, token).toEqual(expected);
        expect(await ethers.fetch('token', { action: 'tokenholderlist', contractaddress: token, sort: 'asc' })).toEqual([...expected].reverse());
        expect(await ethers.fetch('token', { action: 'tokenholdercount', contractaddress: token })).toBe(String(expected.length));
      }
    });

    it("the hosted explorer's own getTokenHolders and getToken (ethers, and plain fetch on its PRO form ?chain_id=): every holder with balanceOf > 0; the contract's metadata", async () => {
      const { ethers } = clients();
      for (const token of [scenario.erc20, minted, scenario.erc721]) {
        const expected = holdersOf(t, token).map((h) => ({ address: h.holder, value: h.value.toString() }));
        expect(expected.length).toBeGreaterThan(1);
        const pages = await everyPage((page) => ethers.fetch('token', { action: 'getTokenHolders', contractaddress: token, page, offset: 3 }));
        expect(pages, token).toEqual(expected);
        // its pages start at 0 or 1 alike; 10 rows a page without offset
        expect(await ethers.fetch('token', { action: 'getTokenHolders', contractaddress: token, page: 0 })).toEqual(expected.slice(0, 10));
        const pro = await (await fetch(`${base}/v2/api?chain_id=${CHAIN}&module=token&action=getTokenHolders&contractaddress=${token}&offset=100&apikey=${TEST_KEY}`)).json();
        expect(pro).toEqual({ status: '1', message: 'OK', result: expected });
      }
      for (const token of [scenario.erc20, minted]) {
        const meta = await tokenMetadata(truth, token);
        expect(await ethers.fetch('token', { action: 'getToken', contractaddress: token })).toEqual({
          type: 'ERC-20',
          name: meta.name,
          symbol: meta.symbol,
          decimals: String(meta.decimals),
          totalSupply: (await truth.readContract({ address: token, abi: erc20Abi, functionName: 'totalSupply', blockNumber: t.head })).toString(),
          contractAddress: lower(token),
          cataloged: true,
        });
      }
    });

    it('tokenbalancehistory, and tokenholderlist / tokenholdercount with blockno (ethers): balanceOf at each past block', async () => {
      const { ethers } = clients();
      const blocks = [1n, t.head / 3n, (2n * t.head) / 3n, t.head - 1n];
      for (const block of blocks) {
        for (const token of [scenario.erc20, scenario.weth, minted, scenario.erc721]) {
          for (const holder of scenario.holders.slice(0, 5)) {
            // a token not deployed yet at the block answers nothing: balance 0
            const expected = await truth
              .readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder], blockNumber: block })
              .catch(() => 0n);
            expect(await ethers.fetch('account', { action: 'tokenbalancehistory', contractaddress: token, address: holder, blockno: block }), `${token} ${holder} at ${block}`).toBe(
              expected.toString(),
            );
          }
        }
        const atBlock = { head: block, balances: await nodeBalances(truth, block), blocks: [] };
        for (const token of [scenario.erc20, scenario.erc721]) {
          const expected = holdersOf(atBlock, token).map((h) => ({ TokenHolderAddress: h.holder, TokenHolderQuantity: h.value.toString() }));
          const pages = await everyPage((page) => ethers.fetch('token', { action: 'tokenholderlist', contractaddress: token, page, offset: 4, blockno: block }));
          expect(pages, `${token} at ${block}`).toEqual(expected);
          expect(await ethers.fetch('token', { action: 'tokenholdercount', contractaddress: token, blockno: block })).toBe(String(expected.length));
        }
      }
      const beyond = { action: 'tokenbalancehistory', contractaddress: scenario.erc20, address: scenario.holders[0]!, blockno: t.head + 1n };
      await expect(ethers.fetch('account', beyond)).rejects.toThrow('Error! Block number beyond the indexed block');
      await expect(ethers.fetch('token', { action: 'tokenholderlist', contractaddress: scenario.erc20, blockno: t.head + 1n })).rejects.toThrow(
        'Error! Block number beyond the indexed block',
      );
    });

    it('addresstokenbalance and addresstokennftbalance (ethers): the holdings balanceOf shows, by token address', async () => {
      const { ethers } = clients();
      const erc20s = [scenario.erc20, scenario.weth, scenario.proxy, scenario.clone, minted];
      for (const holder of scenario.holders.slice(0, 6)) {
        const held: Array<Record<string, string>> = [];
        for (const token of erc20s) {
          const value = await truth.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder], blockNumber: t.head });
          if (value === 0n) continue;
          const meta = await tokenMetadata(truth, token);
          held.push({
            TokenAddress: lower(token),
            TokenName: meta.name ?? '',
            TokenSymbol: meta.symbol ?? '',
            TokenQuantity: value.toString(),
            TokenDivisor: String(meta.decimals ?? 0),
            TokenPriceUSD: '0.0000000000',
          });
        }
        held.sort((a, b) => (a.TokenAddress! < b.TokenAddress! ? -1 : 1));
        expect(await ethers.fetch('account', { action: 'addresstokenbalance', address: holder, page: 1, offset: 100 }), holder).toEqual(held);
        // one token per page
        const paged = [];
        for (let page = 1; page <= held.length + 1; page++) {
          paged.push(...((await ethers.fetch('account', { action: 'addresstokenbalance', address: holder, page, offset: 1 })) as unknown[]));
        }
        expect(paged).toEqual(held);

        const nfts = await truth.readContract({ address: scenario.erc721, abi: erc721Abi, functionName: 'balanceOf', args: [holder], blockNumber: t.head });
        const meta = await tokenMetadata(truth, scenario.erc721);
        expect(await ethers.fetch('account', { action: 'addresstokennftbalance', address: holder })).toEqual(
          nfts === 0n ? [] : [{ TokenAddress: lower(scenario.erc721), TokenName: meta.name, TokenSymbol: meta.symbol, TokenQuantity: nfts.toString() }],
        );
      }
    });

    it('getminedblocks (etherscan-api and ethers): the blocks each miner mined, newest first, with their priority fees', async () => {
      const { es, ethers } = clients();
      for (const miner of [...MINERS, t.blocks[1]!.block.miner]) {
        const expected = t.blocks
          .filter((b) => lower(b.block.miner) === lower(miner))
          .reverse()
          .map((b) => ({ blockNumber: b.block.number.toString(), timeStamp: b.block.timestamp.toString(), blockReward: b.reward.toString() }));
        expect(expected.length).toBeGreaterThan(0);
        expect((await es.account.getminedblocks(miner)).result, miner).toEqual(expected);
        expect(await ethers.fetch('account', { action: 'getminedblocks', address: miner, blocktype: 'blocks', page: 1, offset: 1 })).toEqual(expected.slice(0, 1));
        // no uncles on this chain: that API's empty answer, which both clients read as []
        expect(await ethers.fetch('account', { action: 'getminedblocks', address: miner, blocktype: 'uncles' })).toEqual([]);
      }
    });

    it('getblockreward (etherscan-api and ethers): miner, time and priority fees of each block', async () => {
      const { es, ethers } = clients();
      for (const { block, reward } of t.blocks.filter((_, i) => i % 3 === 0 || i > t.blocks.length - 5)) {
        const expected = {
          blockNumber: block.number.toString(),
          timeStamp: block.timestamp.toString(),
          blockMiner: lower(block.miner),
          blockReward: reward.toString(),
          uncles: [],
          uncleInclusionReward: '0',
        };
        expect((await es.block.getblockreward('', block.number.toString())).result).toEqual(expected);
        expect(await ethers.fetch('block', { action: 'getblockreward', blockno: block.number })).toEqual(expected);
      }
      await expect(es.block.getblockreward('', String(t.head + 1000n))).rejects.toThrow('Error! Block not found');
    });

    it('getblocknobytime (etherscan-api and ethers): the last block at or before, the first at or after', async () => {
      const { es, ethers } = clients();
      const times = t.blocks.map((b) => ({ number: b.block.number, time: b.block.timestamp }));
      const before = (time: bigint) => times.filter((b) => b.time <= time).at(-1)?.number;
      const after = (time: bigint) => times.find((b) => b.time >= time)?.number;
      const probes = [...new Set(times.flatMap((b) => [b.time - 1n, b.time, b.time + 1n]))];
      for (const time of probes) {
        for (const [closest, expected] of [['before', before(time)], ['after', after(time)]] as const) {
          const answer = es.block.getblocknobytime(time.toString(), closest);
          if (expected === undefined) await expect(answer, `${closest} ${time}`).rejects.toThrow('Error! No closest block found');
          else expect((await answer).result, `${closest} ${time}`).toBe(expected.toString());
        }
      }
      expect(await ethers.fetch('block', { action: 'getblocknobytime', timestamp: times.at(-1)!.time, closest: 'before' })).toBe(t.head.toString());
    });

    it("an action we cannot answer: that API's invalid-action error, which the clients surface", async () => {
      const { es, ethers } = clients();
      await expect(es.account.balance(scenario.holders[0]!)).rejects.toThrow('Error! Missing Or invalid Action name');
      await expect(ethers.fetch('account', { action: 'txlist', address: scenario.holders[0]! })).rejects.toThrow(/Missing Or invalid Action name/);
    });
  });

  it('a wrong key and an unknown chain, in the envelope the clients read', async () => {
    const to = redirect(base, 'v2 (/v2/api?chainid=1)');
    const wrongKey = init('not-a-key-of-ours', CHAIN, 10_000, transport(to));
    await expect(wrongKey.stats.tokensupply(undefined, scenario.erc20)).rejects.toThrow('Invalid API Key');
    const otherChain = init(TEST_KEY, 10, 10_000, transport(to));
    await expect(otherChain.stats.tokensupply(undefined, scenario.erc20)).rejects.toThrow(/^Missing or unsupported chainid parameter/);
  });
});
