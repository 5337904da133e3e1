/**
 * The zero-config demo chain: a handful of realistic token contracts with skewed holder
 * distributions, then an endless trickle of transfers in blocks from several miners.
 */
import { encodeFunctionData, numberToHex, parseEther, parseEventLogs, type Address, type Hex } from 'viem';
import { setTimeout as sleep } from 'node:timers/promises';
import { contracts } from './artifacts.js';
import type { DevnetClient, RpcTransaction } from './client.js';
import { createRng, deriveAddress, paretoAmount, shuffled, zipf, type Rng } from './random.js';

export interface ScenarioOptions {
  /** ERC-20 holders, dev accounts included. Default 300. */
  holders?: number;
  /** ERC-721 tokens minted up front. Default 30. */
  nfts?: number;
  seed?: number | string;
}

export interface DemoScenario {
  deployer: Address;
  /** Every address the scenario moves tokens between; all are funded with ETH and impersonated. */
  holders: Address[];
  /** AirdropToken "Demo Dollar" with a Pareto-distributed supply. */
  erc20: Address;
  erc721: Address;
  erc1155: Address;
  weth: Address;
  /** InitializableERC20 behind both the clone and the proxy. */
  implementation: Address;
  cloneFactory: Address;
  /** EIP-1167 clone of `implementation`. */
  clone: Address;
  /** ERC-1967 proxy of `implementation`. */
  proxy: Address;
  /** deployScenario mints ERC-721 ids 1 .. nftCount; the activity loop mints more after them. */
  nftCount: number;
  /** ERC-1155 ids in circulation. */
  erc1155Ids: bigint[];
}

const ERC1155_IDS = [1n, 2n, 3n, 4n, 5n];
/** Gas money for impersonated holders: they pay real fees, like real senders. */
const HOLDER_ETH = parseEther('100');

/** Deploys the demo contracts and seeds balances. Works with automine on or off. */
export async function deployScenario(client: DevnetClient, opts: ScenarioOptions = {}): Promise<DemoScenario> {
  const rng = createRng(opts.seed ?? 'scenario');
  const deployer = client.accounts[0];
  if (!deployer) throw new Error('scenario: node has no dev accounts');
  const holderCount = Math.max(opts.holders ?? 300, client.accounts.length);
  const holders = [
    ...client.accounts,
    ...Array.from({ length: holderCount - client.accounts.length }, (_, i) => deriveAddress(`demo-holder:${String(opts.seed ?? '')}`, i)),
  ];

  await client.setAutoImpersonate(true);
  await Promise.all(holders.map((h) => client.setBalance(h, HOLDER_ETH)));

  const { address: erc20 } = await client.deploy(contracts.AirdropToken, ['Demo Dollar', 'DUSD', 18]);
  // Shuffled so the whales are not simply the first addresses.
  const recipients = shuffled(holders, rng);
  await client.write({
    address: erc20,
    abi: contracts.AirdropToken.abi,
    functionName: 'airdrop',
    args: [recipients, recipients.map(() => paretoAmount(rng, 10n ** 18n))],
    gas: 60_000n + 32_000n * BigInt(recipients.length),
  });

  const { address: erc721 } = await client.deploy(contracts.TestERC721, ['Demo Punks', 'DPUNK', 'ipfs://demo-punks/']);
  const nftCount = opts.nfts ?? 30;
  const popular = zipf(holders.length, 1, rng);
  for (let id = 1; id <= nftCount; id++) {
    await client.write({ address: erc721, abi: contracts.TestERC721.abi, functionName: 'mint', args: [holders[popular()]!, BigInt(id)] });
  }

  const { address: erc1155 } = await client.deploy(contracts.TestERC1155, ['ipfs://demo-items/{id}.json']);
  for (let i = 0; i < 20; i++) {
    await client.write({
      address: erc1155,
      abi: contracts.TestERC1155.abi,
      functionName: 'mintBatch',
      args: [holders[popular()]!, ERC1155_IDS, ERC1155_IDS.map((id) => BigInt(1 + rng.int(100)) * id), '0x'],
    });
  }

  const { address: weth } = await client.deploy(contracts.WETH9, []);
  for (const account of client.accounts) {
    await client.send({ from: account, to: weth, value: parseEther(String(1 + rng.int(50))) });
  }

  const { address: implementation } = await client.deploy(contracts.InitializableERC20, []);
  const { address: cloneFactory } = await client.deploy(contracts.CloneFactory, [implementation]);
  const cloneReceipt = await client.write({
    address: cloneFactory,
    abi: contracts.CloneFactory.abi,
    functionName: 'createClone',
    args: ['Clone Coin', 'CLONE', 18, deployer, parseEther('1000000')],
  });
  const [created] = parseEventLogs({ abi: contracts.CloneFactory.abi, eventName: 'CloneCreated', logs: cloneReceipt.logs });
  if (!created) throw new Error('scenario: CloneFactory emitted no CloneCreated');
  const { address: proxy } = await client.deploy(contracts.Proxy1967, [
    implementation,
    encodeFunctionData({
      abi: contracts.InitializableERC20.abi,
      functionName: 'initialize',
      args: ['Proxy Coin', 'PRXY', 18, deployer, parseEther('1000000')],
    }),
  ]);

  return {
    deployer,
    holders,
    erc20,
    erc721,
    erc1155,
    weth,
    implementation,
    cloneFactory,
    clone: created.args.clone,
    proxy,
    nftCount,
    erc1155Ids: ERC1155_IDS,
  };
}

export interface ActivityOptions {
  /** Default 1. */
  blocksPerSecond?: number;
  /** Number of miners (addresses derived from the seed) or the addresses themselves. Default 5. */
  miners?: number | Address[];
  /** Transactions attempted per block. Default 6. */
  txsPerBlock?: number;
  /** Stop by itself after this many blocks. */
  maxBlocks?: number;
  seed?: number | string;
  onBlock?: (block: { number: bigint; miner: Address; transactions: number; reverted: number }) => void;
  /** Errors of one iteration; the loop goes on unless 5 fail in a row. Default: ignored. */
  onError?: (err: unknown) => void;
}

export interface ActivityStats {
  blocks: number;
  transactions: number;
  /** Transactions that were mined but reverted (possible when balances moved under us; harmless). */
  reverted: number;
  blocksByMiner: Map<Address, number>;
}

export interface ActivityHandle {
  miners: Address[];
  stats(): ActivityStats;
  /** Finishes the block in progress, restores automine, and resolves with the final stats. */
  stop(): Promise<ActivityStats>;
  /** Settles when the loop ends: by stop(), maxBlocks, or after repeated failures (rejects). */
  done: Promise<ActivityStats>;
}

type Action = (ctx: BlockContext) => Promise<RpcTransaction | undefined>;

interface BlockContext {
  rng: Rng;
  /**
   * A holder that sends nothing else in this block: anvil estimates gas and picks nonces against
   * the last block, so a second pending transaction of the same sender could be mis-estimated.
   */
  sender(): Address;
  /** Reserves a specific sender for this block; false if it already sends. */
  claim(address: Address): boolean;
  recipient(): Address;
  /** Each NFT id moves at most once per block. */
  nftsMoved: Set<number>;
}

function call(from: Address, to: Address, data: Hex, value?: bigint): RpcTransaction {
  return value === undefined ? { from, to, data } : { from, to, data, value: numberToHex(value) };
}

function makeActions(client: DevnetClient, s: DemoScenario, nftCount: () => number, mintNft: () => number): [number, Action][] {
  const balanceOf = (token: Address, holder: Address) =>
    client.public.readContract({ address: token, abi: contracts.TestERC20.abi, functionName: 'balanceOf', args: [holder] });

  const transferPart = (token: Address, fromDeployer = false): Action => async (ctx) => {
    if (fromDeployer && !ctx.claim(s.deployer)) return undefined;
    const from = fromDeployer ? s.deployer : ctx.sender();
    const balance = await balanceOf(token, from);
    if (balance === 0n) return undefined;
    const amount = (balance * BigInt(1 + ctx.rng.int(fromDeployer ? 2 : 30))) / 100n;
    const data = encodeFunctionData({ abi: contracts.TestERC20.abi, functionName: 'transfer', args: [ctx.recipient(), amount] });
    return call(from, token, data);
  };

  return [
    [30, transferPart(s.erc20)],
    [8, transferPart(s.clone)],
    [8, transferPart(s.proxy)],
    // The deployer holds the initial clone and proxy supply and seeds other holders with it.
    [2, transferPart(s.clone, true)],
    [2, transferPart(s.proxy, true)],
    [6, async (ctx) => call(ctx.sender(), s.weth, encodeFunctionData({ abi: contracts.WETH9.abi, functionName: 'deposit' }), parseEther('0.1') * BigInt(1 + ctx.rng.int(20)))],
    [4, async (ctx) => {
      const from = ctx.sender();
      const balance = await balanceOf(s.weth, from);
      if (balance === 0n) return undefined;
      return call(from, s.weth, encodeFunctionData({ abi: contracts.WETH9.abi, functionName: 'withdraw', args: [balance / 2n] }));
    }],
    [6, transferPart(s.weth)],
    [10, async (ctx) => {
      const id = 1 + ctx.rng.int(nftCount());
      if (ctx.nftsMoved.has(id)) return undefined;
      ctx.nftsMoved.add(id);
      const owner = await client.public.readContract({ address: s.erc721, abi: contracts.TestERC721.abi, functionName: 'ownerOf', args: [BigInt(id)] });
      if (!ctx.claim(owner)) return undefined;
      const data = encodeFunctionData({ abi: contracts.TestERC721.abi, functionName: 'transferFrom', args: [owner, ctx.recipient(), BigInt(id)] });
      return call(owner, s.erc721, data);
    }],
    [3, async (ctx) => {
      const data = encodeFunctionData({ abi: contracts.TestERC721.abi, functionName: 'mint', args: [ctx.recipient(), BigInt(mintNft())] });
      return call(ctx.sender(), s.erc721, data);
    }],
    [10, async (ctx) => {
      const from = ctx.sender();
      const ids = s.erc1155Ids;
      const balances = await client.public.readContract({
        address: s.erc1155,
        abi: contracts.TestERC1155.abi,
        functionName: 'balanceOfBatch',
        args: [ids.map(() => from), ids],
      });
      const owned = ids.filter((_, i) => balances[i]! > 0n);
      if (owned.length === 0) {
        const data = encodeFunctionData({ abi: contracts.TestERC1155.abi, functionName: 'mint', args: [from, ctx.rng.pick(ids), 10n, '0x'] });
        return call(from, s.erc1155, data);
      }
      const to = ctx.recipient();
      if (owned.length > 1 && ctx.rng.chance(0.3)) {
        const amounts = owned.map((id) => balances[ids.indexOf(id)]! / 2n);
        const data = encodeFunctionData({ abi: contracts.TestERC1155.abi, functionName: 'safeBatchTransferFrom', args: [from, to, owned, amounts, '0x'] });
        return call(from, s.erc1155, data);
      }
      const id = ctx.rng.pick(owned);
      const amount = 1n + balances[ids.indexOf(id)]! / 3n;
      const data = encodeFunctionData({ abi: contracts.TestERC1155.abi, functionName: 'safeTransferFrom', args: [from, to, id, amount, '0x'] });
      return call(from, s.erc1155, data);
    }],
    [8, async (ctx) => ({ from: ctx.sender(), to: ctx.recipient(), value: numberToHex(parseEther('0.01') * BigInt(1 + ctx.rng.int(100))) })],
  ];
}

/**
 * Makes transactions and mines them, `blocksPerSecond` blocks a second, each block credited to a
 * miner drawn with Zipf weights (a few big producers, a tail of small ones) via anvil_setCoinbase.
 * Turns automine off while it runs, since it decides what goes in each block.
 */
export function generateActivity(client: DevnetClient, scenario: DemoScenario, opts: ActivityOptions = {}): ActivityHandle {
  const rng = createRng(opts.seed ?? 'activity');
  const miners = Array.isArray(opts.miners)
    ? opts.miners
    : Array.from({ length: opts.miners ?? 5 }, (_, i) => deriveAddress(`demo-miner:${String(opts.seed ?? '')}`, i));
  if (miners.length === 0) throw new Error('activity: need at least one miner');
  const pickMiner = zipf(miners.length, 1, rng);
  const pickHolder = zipf(scenario.holders.length, 0.8, rng);
  const intervalMs = 1000 / (opts.blocksPerSecond ?? 1);
  const txsPerBlock = opts.txsPerBlock ?? 6;

  // Transfers pick among mined NFTs only: ownerOf of one minted in the pending block would revert.
  let nftsMined = scenario.nftCount;
  let nftsMinted = scenario.nftCount;
  const actions = makeActions(client, scenario, () => nftsMined, () => ++nftsMinted);
  const totalWeight = actions.reduce((sum, [w]) => sum + w, 0);
  const pickAction = (): Action => {
    let x = rng.next() * totalWeight;
    for (const [w, action] of actions) {
      x -= w;
      if (x < 0) return action;
    }
    return actions[actions.length - 1]![1];
  };

  const stats: ActivityStats = { blocks: 0, transactions: 0, reverted: 0, blocksByMiner: new Map() };
  const snapshot = (): ActivityStats => ({ ...stats, blocksByMiner: new Map(stats.blocksByMiner) });
  let stopped = false;
  let wake: (() => void) | undefined;

  const mineBlock = async () => {
    const used = new Set<Address>();
    const claim = (address: Address) => !used.has(address) && (used.add(address), true);
    const ctx: BlockContext = {
      rng,
      claim,
      sender: () => {
        for (let i = 0; i < 20; i++) {
          const h = scenario.holders[pickHolder()]!;
          if (claim(h)) return h;
        }
        const free = scenario.holders.find(claim);
        if (!free) throw new Error('activity: more transactions per block than holders');
        return free;
      },
      recipient: () => scenario.holders[pickHolder()]!,
      nftsMoved: new Set(),
    };
    let sent = 0;
    for (let i = 0; i < txsPerBlock; i++) {
      // An action whose reads fail is skipped like one with nothing to do; a node that is really
      // gone fails setCoinbase/mine below.
      const tx = await pickAction()(ctx).catch(() => undefined);
      if (!tx) continue;
      // A failed estimate means the transaction would revert; skipping it keeps blocks clean.
      if (await client.sendTransaction(tx).then(() => true, () => false)) sent++;
    }
    const miner = miners[pickMiner()]!;
    await client.setCoinbase(miner);
    await client.mine(1);
    nftsMined = nftsMinted;
    const receipts = await client.request<{ status: Hex; blockNumber: Hex }[]>('eth_getBlockReceipts', ['latest']);
    const number = BigInt(receipts[0]?.blockNumber ?? (await client.request<Hex>('eth_blockNumber')));
    const reverted = receipts.filter((r) => r.status !== '0x1').length;
    stats.blocks++;
    stats.transactions += sent;
    stats.reverted += reverted;
    stats.blocksByMiner.set(miner, (stats.blocksByMiner.get(miner) ?? 0) + 1);
    opts.onBlock?.({ number, miner, transactions: receipts.length, reverted });
  };

  const done = (async () => {
    const wasAutomine = await client.getAutomine();
    await client.setAutomine(false);
    let failures = 0;
    try {
      while (!stopped && (opts.maxBlocks === undefined || stats.blocks < opts.maxBlocks)) {
        const started = Date.now();
        try {
          await mineBlock();
          failures = 0;
        } catch (err) {
          opts.onError?.(err);
          if (++failures >= 5) throw err;
        }
        const wait = intervalMs - (Date.now() - started);
        if (wait > 0 && !stopped) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, wait);
          });
        }
      }
    } finally {
      await client.setAutomine(wasAutomine).catch(() => undefined);
    }
    return snapshot();
  })();
  // stop() is how callers observe errors; an unobserved rejection here would crash the process.
  done.catch(() => undefined);

  return {
    miners,
    stats: snapshot,
    stop: async () => {
      stopped = true;
      wake?.();
      return done;
    },
    done,
  };
}

/** Resolves once the activity loop has mined `blocks` blocks in total. */
export async function waitForBlocks(handle: ActivityHandle, blocks: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (handle.stats().blocks < blocks) {
    if (Date.now() > deadline) throw new Error(`activity produced ${handle.stats().blocks} of ${blocks} blocks in ${timeoutMs} ms`);
    await sleep(20);
  }
}
