/**
 * Past-block ground truth for the history tests: what the node's contracts report at a block
 * (balanceOf / balanceOf(holder, id) at that block, totalSupply at that block), shaped like
 * what our snapshots serve, and a chain that exercises every kind of balance change.
 */
import { erc20Abi, type PublicClient } from 'viem';
import { contracts } from '../../src/devnet/artifacts.js';
import { deployScenario, generateActivity, type DemoScenario } from '../../src/devnet/scenario.js';
import type { TestNode } from './anvil.js';
import { expect } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { summaryAt } from '../../src/db/queries/balance-history.js';
import { holdersPage } from '../../src/db/queries/holders.js';
import type { Hex, TokenType } from '../../src/db/rows.js';
import { holderCounts, holdingKey, nodeBalances } from './ground-truth.js';
import { DEVNET_CHAIN_ID as CHAIN } from './indexer-harness.js';

export interface BlockTruth {
  /** holding key (token|holder|id) → positive balance at the block */
  balances: Map<string, bigint>;
  /** token → distinct holders with a positive balance at the block */
  holderCounts: Map<string, number>;
}

export async function truthAt(client: PublicClient, block: bigint): Promise<BlockTruth> {
  const balances = await nodeBalances(client, block);
  return { balances, holderCounts: holderCounts(balances) };
}

/** The token's own totalSupply() at the block. */
export const totalSupplyAt = (client: PublicClient, token: `0x${string}`, block: bigint) =>
  client.readContract({ address: token, abi: erc20Abi, functionName: 'totalSupply', blockNumber: block });

export interface HistoryChain {
  scenario: DemoScenario;
  /** a plain ERC-20 minted, moved and burnt by the test itself */
  burnable: `0x${string}`;
}

/**
 * The demo scenario (ERC-20 airdrop, ERC-721 mints, ERC-1155 batch mints, WETH deposits), then
 * blocks of activity (transfers, ERC-721 moves and mints, ERC-1155 single and batch transfers,
 * WETH deposits and withdrawals) with explicit burns of each kind in between.
 */
export async function buildHistoryChain(node: TestNode, label: string): Promise<HistoryChain> {
  const scenario = await deployScenario(node, { holders: 24, nfts: 8, seed: label });
  await generateActivity(node, scenario, { maxBlocks: 5, blocksPerSecond: 1_000, txsPerBlock: 6, seed: `${label}:a` }).done;
  const { address: burnable } = await node.deploy(contracts.TestERC20, ['Burnable', 'BURN', 18]);
  const [a, b, c] = scenario.holders as [`0x${string}`, `0x${string}`, `0x${string}`];
  await node.write({ address: burnable, abi: contracts.TestERC20.abi, functionName: 'mint', args: [a, 10n ** 21n] });
  await node.write({ address: burnable, abi: contracts.TestERC20.abi, functionName: 'mint', args: [b, 5n * 10n ** 20n] });
  await node.write({ address: burnable, abi: contracts.TestERC20.abi, functionName: 'burn', args: [a, 3n * 10n ** 20n] });
  // burnt to nothing: b leaves the holders
  await node.write({ address: burnable, abi: contracts.TestERC20.abi, functionName: 'burn', args: [b, 5n * 10n ** 20n] });
  await node.write({ address: burnable, abi: contracts.TestERC20.abi, functionName: 'mint', args: [c, 1n] });
  await node.write({ address: scenario.erc721, abi: contracts.TestERC721.abi, functionName: 'burn', args: [1n] });
  const owner = scenario.holders.find(Boolean)!;
  await node.write({ address: scenario.erc1155, abi: contracts.TestERC1155.abi, functionName: 'mintBatch', args: [owner, [1n, 2n], [7n, 9n], '0x'] });
  await node.write({ address: scenario.erc1155, abi: contracts.TestERC1155.abi, functionName: 'burnBatch', args: [owner, [1n, 2n], [7n, 9n]] });
  await generateActivity(node, scenario, { maxBlocks: 5, blocksPerSecond: 1_000, txsPerBlock: 6, seed: `${label}:b` }).done;
  return { scenario, burnable };
}

/** `count` blocks spread evenly over [from, to], both ends included. */
export function spreadBlocks(from: bigint, to: bigint, count: number): bigint[] {
  const span = to - from;
  const picked = new Set<bigint>();
  for (let i = 0; i < count; i++) picked.add(from + (span * BigInt(i)) / BigInt(count - 1));
  return [...picked];
}

async function tokensOf(db: Database): Promise<Array<{ token: Hex; type: TokenType }>> {
  const rows = await db.query<{ token: string; type: TokenType }>("SELECT '0x' || encode(address, 'hex') AS token, type FROM tokens WHERE chain_id = $1", [CHAIN]);
  return rows.map((r) => ({ token: r.token as Hex, type: r.type }));
}

/**
 * Our list of every token at `block` as the holders operation reads it: holding key → value,
 * token → holders, token → total; each token's holders once each, as many as its count.
 */
export async function servedAt(db: Database, block: bigint) {
  const balances = new Map<string, bigint>();
  const counts = new Map<string, number>();
  const totals = new Map<string, bigint>();
  for (const { token, type } of await tokensOf(db)) {
    const first = (await db.query<{ f: string | null }>('SELECT first_block::text AS f FROM tokens WHERE chain_id = $1 AND address = $2', [CHAIN, Buffer.from(token.slice(2), 'hex')]))[0]!.f;
    if (first === null || BigInt(first) > block) continue;
    const summary = await summaryAt(db, CHAIN, token, type, block);
    const page = await holdersPage(db, { chainId: CHAIN, token, after: null, limit: 10_000, source: { kind: 'past', block } });
    for (const h of page.holders) balances.set(holdingKey({ token, holder: h.address.hash, tokenId: h.tokenId }), h.value);
    expect(BigInt(new Set(page.holders.map((h) => h.address.hash)).size)).toBe(summary.holderCount);
    if (summary.holderCount > 0n) counts.set(token, Number(summary.holderCount));
    totals.set(token, summary.total);
  }
  return { balances, counts, totals };
}
