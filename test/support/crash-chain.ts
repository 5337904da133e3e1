/** The chain the reliability tests kill indexers on: many miners and bulk ERC-20 traffic on anvil. */
import type { Address } from 'viem';
import type { Hex } from '../../src/db/rows.js';
import { generateBulk, type BulkOptions, type BulkResult } from '../../src/devnet/bulk.js';
import type { DevnetClient } from '../../src/devnet/client.js';
import { deriveAddress } from '../../src/devnet/random.js';
import { deployScenario, generateActivity, type DemoScenario } from '../../src/devnet/scenario.js';

/** A token and every address that may hold it (those its generator ever paid). */
export interface TokenHolders {
  token: Hex;
  holders: readonly Hex[];
}

export function holdingsOf(bulk: BulkResult): TokenHolders[] {
  const holders = bulk.holders.map((h: Address) => h.toLowerCase() as Hex);
  return bulk.tokens.map((t) => ({ token: t.address.toLowerCase() as Hex, holders }));
}

export interface CrashChain {
  bulk: BulkResult;
  holdings: TokenHolders[];
  /** the demo contracts (ERC-721, ERC-1155, WETH, an airdrop token, a clone and a proxy token), if asked for */
  scenario: DemoScenario | null;
  /** the scenario's tokens, checked with balanceOf over their own events (compareWithNode) */
  balanceOfTokens: Hex[];
  miners: Hex[];
  head: bigint;
}

export const scenarioTokens = (s: DemoScenario): Hex[] =>
  [s.erc20, s.erc721, s.erc1155, s.weth, s.clone, s.proxy].map((t) => t.toLowerCase() as Hex);

/**
 * `blocks` blocks of the demo scenario's traffic (ERC-721 transfers and mints, ERC-1155 single
 * and batch transfers, WETH deposits and withdrawals, ERC-20 transfers) from these miners.
 */
export async function scenarioActivity(node: DevnetClient, scenario: DemoScenario, blocks: number, miners: readonly Hex[], seed: string): Promise<void> {
  const activity = generateActivity(node, scenario, { maxBlocks: blocks, blocksPerSecond: 1_000, txsPerBlock: 6, miners: [...miners], seed });
  await activity.done;
}

/**
 * Blocks from several miners around a bulk of ERC-20 traffic: runs of empty blocks (batches grow
 * fast over them) and blocks dense with transfers (batches stay small), so kills land in both;
 * with `scenarioBlocks`, the demo contracts and that many blocks of their traffic before the
 * bulk, so non-fungible balances are there to check too.
 */
export async function buildCrashChain(
  node: DevnetClient,
  opts: { bulk: BulkOptions; miners: number; emptyBlocks: number; scenarioBlocks?: number; seed: string },
): Promise<CrashChain> {
  const miners = Array.from({ length: opts.miners }, (_, i) => deriveAddress(`miner:${opts.seed}`, i));
  const mineRuns = async (blocks: number) => {
    const run = Math.max(1, Math.ceil(blocks / miners.length / 3));
    for (let done = 0, i = 0; done < blocks; done += run, i++) {
      await node.setCoinbase(miners[i % miners.length]!);
      await node.mine(Math.min(run, blocks - done));
    }
  };
  const lowerMiners = miners.map((m) => m.toLowerCase() as Hex);
  await mineRuns(Math.floor(opts.emptyBlocks / 2));
  await node.setCoinbase(miners[0]!);
  let scenario: DemoScenario | null = null;
  if (opts.scenarioBlocks !== undefined) {
    scenario = await deployScenario(node, { holders: 40, nfts: 10, seed: opts.seed });
    await scenarioActivity(node, scenario, opts.scenarioBlocks, lowerMiners, opts.seed);
    await node.setCoinbase(miners[0]!);
  }
  const bulk = await generateBulk(node, opts.bulk);
  await mineRuns(Math.ceil(opts.emptyBlocks / 2));
  const head = await node.public.getBlockNumber();
  return { bulk, holdings: holdingsOf(bulk), scenario, balanceOfTokens: scenario ? scenarioTokens(scenario) : [], miners: lowerMiners, head };
}
