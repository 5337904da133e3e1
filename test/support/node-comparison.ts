/** The database against the node: every balance, holder count, supply and block compared with what the node itself says. */
import { decodeFunctionResult, encodeFunctionData, numberToHex, parseAbi, toEventSelector } from 'viem';
import type { Queryable } from '../../src/db/client.js';
import type { Hex } from '../../src/db/rows.js';
import { balancesAt, holderCounts, holdingKey, nodeTransferCounts, touchedHoldings, truthClient, type Holding } from './ground-truth.js';
import type { TokenHolders } from './crash-chain.js';
import { ethCall, nodeBlocks, rpcBatch } from './node-facts.js';

const ERC20 = parseAbi(['function totalSupply() view returns (uint256)']);
const TRANSFER = toEventSelector('Transfer(address,address,uint256)');

export interface TruthReport {
  indexedBlock: bigint | null;
  balancesChecked: number;
  /** of those, ERC-721 owner counts (balanceOf(owner)) and ERC-1155 balances (balanceOf(owner, id)) */
  erc721Checked: number;
  erc1155Checked: number;
  balanceMismatches: string[];
  holderCountMismatches: string[];
  supplyMismatches: string[];
  /** tokens.transfers_count against the token's transfer events in the node's logs up to the indexed block */
  transferCountMismatches: string[];
  missingBlocks: bigint[];
  duplicateBlocks: bigint[];
  wrongBlocks: string[];
  /** consensus blocks above the node's head, or blocks marked non-consensus */
  strayBlocks: number;
  negativeBalances: number;
  /**
   * The batch token parts committed above the indexed block (PostgreSQL's backfill: a kill
   * between the parts' commits and the batch's, src/indexer/write-parts.ts), or null. Their
   * tokens' rows are then a batch ahead of the indexed block until the next start writes that
   * batch for the others, so the balances are not compared for such a kill (the blocks are);
   * test/indexer/token-parts.test.ts holds that state against the node, and the next check holds
   * the next start's resume.
   */
  partsAheadAt: bigint | null;
}

export function mismatchCount(r: TruthReport): number {
  return (
    r.balanceMismatches.length + r.holderCountMismatches.length + r.supplyMismatches.length + r.transferCountMismatches.length + r.missingBlocks.length +
    r.duplicateBlocks.length + r.wrongBlocks.length + r.strayBlocks + r.negativeBalances
  );
}

/** A readable summary for test output: counts, and the first few of each kind of difference. */
export function describeReport(r: TruthReport): string {
  const few = (xs: readonly unknown[]) => (xs.length === 0 ? '0' : `${xs.length} (${xs.slice(0, 3).map(String).join('; ')}${xs.length > 3 ? '; …' : ''})`);
  return [
    `indexed=${r.indexedBlock}${r.partsAheadAt === null ? '' : ` (token parts ahead at ${r.partsAheadAt}: balances not compared)`}`,
    `balances checked=${r.balancesChecked} (ERC-721 ${r.erc721Checked}, ERC-1155 ${r.erc1155Checked})`,
    `balance mismatches=${few(r.balanceMismatches)}`,
    `holder-count mismatches=${few(r.holderCountMismatches)}`,
    `supply mismatches=${few(r.supplyMismatches)}`,
    `transfer-count mismatches=${few(r.transferCountMismatches)}`,
    `missing blocks=${few(r.missingBlocks)}`,
    `duplicate blocks=${few(r.duplicateBlocks)}`,
    `wrong blocks=${few(r.wrongBlocks)}`,
    `stray blocks=${r.strayBlocks}`,
    `negative balances=${r.negativeBalances}`,
  ].join(', ');
}

const key = (token: string, holder: string) => `${token}|${holder}`;

interface BalanceRowText {
  token: Hex;
  holder: Hex;
  token_id: string | null;
  value: string;
}

/**
 * Every balance the database has, and every (token, possible holder) pair it might be missing,
 * against the node at the indexed block; holder counts per token; the consensus blocks against
 * the node's blocks 0..indexed block. The bulk's ERC-20s (`holdings`) by balanceOf at the node's
 * head and by their Transfer logs below it, with sums against totalSupply(); `balanceOfTokens`
 * (ERC-721, ERC-1155, WETH…) by balanceOf / balanceOf(holder, id) at the indexed block of every
 * holding their events touched (test/support/ground-truth.ts). A balance row of any other token
 * is a mismatch. Assumes the node's chain did not reorganise.
 */
export async function compareWithNode(
  db: Queryable,
  input: { url: string; chainId: number; holdings: readonly TokenHolders[]; balanceOfTokens?: readonly Hex[] },
): Promise<TruthReport> {
  const { url, chainId } = input;
  const tokens = input.holdings.map((h) => h.token);
  const byBalanceOf = new Set(input.balanceOfTokens ?? []);
  const progress = await db.query<{ indexed: string | null }>('SELECT indexed_block::text AS indexed FROM chains WHERE chain_id = $1', [chainId]);
  const indexedText = progress[0]?.indexed ?? null;
  const at = indexedText === null ? -1n : BigInt(indexedText);
  const allRows = await db.query<BalanceRowText>(
    `SELECT '0x' || encode(token, 'hex') AS token, '0x' || encode(holder, 'hex') AS holder, token_id::text AS token_id, value::text AS value
     FROM token_balances WHERE chain_id = $1`,
    [chainId],
  );
  const bulkTokens = new Set<string>(tokens);
  const rows = allRows.filter((r) => bulkTokens.has(r.token) && r.token_id === null);
  const otherRows = allRows.filter((r) => byBalanceOf.has(r.token));
  const strayRows = allRows.filter((r) => !(bulkTokens.has(r.token) && r.token_id === null) && !byBalanceOf.has(r.token));
  const ours = new Map(rows.map((r) => [key(r.token, r.holder), BigInt(r.value)]));
  const pairs = new Set(rows.map((r) => key(r.token, r.holder)));
  for (const { token, holders } of input.holdings) for (const h of holders) pairs.add(key(token, h));
  const list = [...pairs].map((k) => k.split('|') as [Hex, Hex]);

  const report: TruthReport = {
    indexedBlock: indexedText === null ? null : at,
    balancesChecked: list.length,
    erc721Checked: 0,
    erc1155Checked: 0,
    balanceMismatches: strayRows.map((r) => `${r.token}/${r.holder}/${r.token_id ?? '-'}: db ${r.value}, a token the chain does not have`),
    holderCountMismatches: [],
    supplyMismatches: [],
    transferCountMismatches: [],
    missingBlocks: [],
    duplicateBlocks: [],
    wrongBlocks: [],
    strayBlocks: 0,
    negativeBalances: allRows.filter((r) => BigInt(r.value) < 0n).length,
    partsAheadAt: null,
  };
  const [ahead] = await db.query<{ block: string | null }>('SELECT max(block_number)::text AS block FROM token_parts WHERE chain_id = $1 AND block_number > $2', [
    chainId,
    at.toString(),
  ]);
  report.partsAheadAt = ahead?.block == null ? null : BigInt(ahead.block);
  if (at >= 0n && report.partsAheadAt === null) {
    const [latest] = await rpcBatch<Hex>(url, [{ method: 'eth_blockNumber', params: [] }]);
    const truth = at === BigInt(latest!) ? await balancesByCall(url, list, at) : await balancesByLogs(url, tokens, list, at);
    const holdersByToken = new Map<string, number>();
    list.forEach(([t, h], i) => {
      const expected = truth[i]!;
      const actual = ours.get(key(t, h)) ?? 0n;
      if (actual !== expected) report.balanceMismatches.push(`${t}/${h}: db ${actual}, node ${expected}`);
      if (expected > 0n) holdersByToken.set(t, (holdersByToken.get(t) ?? 0) + 1);
    });
    const supplies = (await rpcBatch<Hex>(url, tokens.map((t) => ethCall(t, encodeFunctionData({ abi: ERC20, functionName: 'totalSupply' }), at))))
      .map((d) => decodeUint('totalSupply', d));
    const counts = await db.query<{ token: string; type: string; holders: string }>(
      `SELECT '0x' || encode(address, 'hex') AS token, type, holder_count::text AS holders FROM tokens WHERE chain_id = $1`,
      [chainId],
    );
    const countOf = new Map(counts.map((c) => [c.token, Number(c.holders)]));
    const typeOf = new Map(counts.map((c) => [c.token, c.type]));
    tokens.forEach((t, i) => {
      const expected = holdersByToken.get(t) ?? 0;
      const counted = countOf.get(t) ?? 0;
      if (counted !== expected) report.holderCountMismatches.push(`${t}: db ${counted}, node ${expected}`);
      const sum = rows.filter((r) => r.token === t).reduce((s, r) => s + BigInt(r.value), 0n);
      if (sum !== supplies[i]) report.supplyMismatches.push(`${t}: db sum ${sum}, totalSupply ${supplies[i]}`);
    });
    if (byBalanceOf.size > 0) await compareByBalanceOf(url, [...byBalanceOf] as Hex[], otherRows, at, { countOf, typeOf }, report);
    await compareTransferCounts(db, url, chainId, at, [...byBalanceOf] as Hex[], report);
  }
  await compareBlocks(db, url, chainId, at, report);
  return report;
}

/**
 * `tokens`' balances at `at` by the ground truth's own reading of the node: every holding their
 * events touched up to `at` and every row the database has for them, each asked with balanceOf
 * (balanceOf(holder, id) for an ERC-1155 id, the count of NFTs owned for an ERC-721); holder
 * counts from those balances.
 */
async function compareByBalanceOf(
  url: string,
  tokens: readonly Hex[],
  rows: readonly BalanceRowText[],
  at: bigint,
  db: { countOf: ReadonlyMap<string, number>; typeOf: ReadonlyMap<string, string> },
  report: TruthReport,
): Promise<void> {
  const client = truthClient(url);
  const holdingOf = (r: BalanceRowText): Holding => ({ token: r.token, holder: r.holder, tokenId: r.token_id === null ? null : BigInt(r.token_id) });
  const holdings = new Map((await touchedHoldings(client, at, tokens)).map((h) => [holdingKey(h), h]));
  for (const r of rows) holdings.set(holdingKey(holdingOf(r)), holdingOf(r));
  const truth = await balancesAt(client, [...holdings.values()], at);
  const ours = new Map(rows.map((r) => [holdingKey(holdingOf(r)), BigInt(r.value)]));
  for (const [k, expected] of truth) {
    const actual = ours.get(k) ?? 0n;
    if (actual !== expected) report.balanceMismatches.push(`${k}: db ${actual}, node ${expected}`);
  }
  report.balancesChecked += truth.size;
  for (const h of holdings.values()) {
    if (h.tokenId !== null) report.erc1155Checked++;
    else if (db.typeOf.get(h.token) === 'ERC-721') report.erc721Checked++;
  }
  for (const [token, expected] of holderCounts(truth, tokens)) {
    const counted = db.countOf.get(token) ?? 0;
    if (counted !== expected) report.holderCountMismatches.push(`${token}: db ${counted}, node ${expected}`);
  }
}

/**
 * Every token's transfers (tokens.transfers_count) against its transfer events in the node's logs
 * up to `at` (ground-truth.ts nodeTransferCounts), a Deposit or Withdrawal counted for the
 * `wrapped` tokens only: the scenario's, of which WETH9 alone emits them.
 */
async function compareTransferCounts(db: Queryable, url: string, chainId: number, at: bigint, wrapped: readonly Hex[], report: TruthReport): Promise<void> {
  const expected = await nodeTransferCounts(truthClient(url), at, wrapped);
  const rows = await db.query<{ token: string; n: string | null }>(
    "SELECT '0x' || encode(address, 'hex') AS token, transfers_count::text AS n FROM tokens WHERE chain_id = $1",
    [chainId],
  );
  const ours = new Map(rows.map((r) => [r.token, r.n]));
  for (const token of new Set([...ours.keys(), ...expected.keys()])) {
    const counted = ours.has(token) ? ours.get(token) : '(no row)';
    const said = (expected.get(token) ?? 0n).toString();
    if (counted !== said) report.transferCountMismatches.push(`${token}: db ${counted}, node ${said}`);
  }
}

// '0x': the token was not deployed yet at that block, so nobody held it
const decodeUint = (functionName: 'totalSupply', data: Hex) => (data === '0x' ? 0n : decodeFunctionResult({ abi: ERC20, functionName, data }));

/** balanceOf of each pair at `at`, by the ground truth's own reader. */
async function balancesByCall(url: string, list: ReadonlyArray<[Hex, Hex]>, at: bigint): Promise<bigint[]> {
  const holdings = list.map(([token, holder]): Holding => ({ token, holder, tokenId: null }));
  const values = await balancesAt(truthClient(url), holdings, at);
  return holdings.map((h) => values.get(holdingKey(h))!);
}

/**
 * Balances as the node's own Transfer logs up to `at` add up. anvil answers eth_call at an old
 * block by loading that block's state from disk, ~5 ms per call, so thousands of balanceOf calls
 * are checked this way below the head (for these plain ERC-20s only Transfer moves a balance;
 * totalSupply() is still asked at `at`, and the head is checked with balanceOf itself).
 */
async function balancesByLogs(url: string, tokens: readonly Hex[], list: ReadonlyArray<[Hex, Hex]>, at: bigint): Promise<bigint[]> {
  const filter = { fromBlock: '0x0', toBlock: numberToHex(at), address: tokens, topics: [TRANSFER] };
  const [logs] = await rpcBatch<Array<{ address: Hex; topics: Hex[]; data: Hex }>>(url, [{ method: 'eth_getLogs', params: [filter] }]);
  const sums = new Map<string, bigint>();
  const add = (token: string, topic: Hex, delta: bigint) => {
    const k = key(token.toLowerCase(), `0x${topic.slice(26)}`);
    sums.set(k, (sums.get(k) ?? 0n) + delta);
  };
  for (const log of logs!) {
    add(log.address, log.topics[1]!, -BigInt(log.data));
    add(log.address, log.topics[2]!, BigInt(log.data));
  }
  return list.map(([t, h]) => sums.get(key(t, h)) ?? 0n);
}

async function compareBlocks(db: Queryable, url: string, chainId: number, at: bigint, report: TruthReport): Promise<void> {
  const ours = await db.query<{ number: string; hash: string; miner: string; consensus: boolean; txs: number; gas: string; internal: number | null }>(
    `SELECT number::text AS number, '0x' || encode(hash, 'hex') AS hash, '0x' || encode(miner, 'hex') AS miner, consensus,
       transactions_count AS txs, gas_used::text AS gas, internal_transactions_count AS internal
     FROM blocks WHERE chain_id = $1`,
    [chainId],
  );
  const theirs = at >= 0n ? await nodeBlocks(url, at) : [];
  const seen = new Map<bigint, number>();
  for (const b of ours) {
    const n = BigInt(b.number);
    const node = theirs[Number(n)];
    if (!b.consensus || !node) {
      report.strayBlocks++;
      continue;
    }
    seen.set(n, (seen.get(n) ?? 0) + 1);
    const mine = `${b.hash}/${b.miner}/${b.txs} txs/${b.gas} gas/${b.internal} internal`;
    const truth = `${node.hash}/${node.miner}/${node.transactions} txs/${node.gasUsed} gas/${node.internalTransactions} internal`;
    if (mine !== truth) report.wrongBlocks.push(`#${n}: db ${mine}, node ${truth}`);
  }
  for (const b of theirs) {
    const times = seen.get(b.number) ?? 0;
    if (times === 0) report.missingBlocks.push(b.number);
    if (times > 1) report.duplicateBlocks.push(b.number);
  }
}
