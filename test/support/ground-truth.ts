/**
 * What an index should contain, asked of the node itself and of the API as a client sees it,
 * with code that shares nothing with the indexer: token events are decoded here from raw logs,
 * balances come from the token contracts' balanceOf, blocks and fees from the node's blocks
 * and receipts.
 */
import {
  createPublicClient,
  decodeAbiParameters,
  erc20Abi,
  getAddress,
  http,
  parseAbi,
  toEventSelector,
  type Block,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import type { Queryable } from '../../src/db/client.js';
import type { TestApi } from './api.js';

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

const TOPICS = {
  transfer: toEventSelector('Transfer(address,address,uint256)'),
  transferSingle: toEventSelector('TransferSingle(address,address,address,uint256,uint256)'),
  transferBatch: toEventSelector('TransferBatch(address,address,address,uint256[],uint256[])'),
  deposit: toEventSelector('Deposit(address,uint256)'),
  withdrawal: toEventSelector('Withdrawal(address,uint256)'),
};

const balanceAbi = parseAbi([
  'function balanceOf(address owner) view returns (uint256)',
  'function balanceOf(address owner, uint256 id) view returns (uint256)',
]);

/** A batching viem client for the many reads a ground-truth check makes. */
export function truthClient(url: string): PublicClient {
  return createPublicClient({ transport: http(url, { batch: { batchSize: 500 } }), cacheTime: 0 });
}

/** One balance: token_id only for ERC-1155 (an ERC-721 balance counts the NFTs held). */
export interface Holding {
  token: Hex;
  holder: Hex;
  tokenId: bigint | null;
}

export const holdingKey = (h: Holding) => `${h.token.toLowerCase()}|${h.holder.toLowerCase()}|${h.tokenId ?? ''}`;

const topicAddress = (topic: Hex | undefined): Hex => `0x${topic!.slice(26)}`.toLowerCase() as Hex;

/**
 * Every (token, holder, id) that any token event up to `toBlock` touched: the candidates that
 * can hold a balance (of `tokens` only, when given). WETH-style Deposit/Withdrawal count too,
 * since a deposit mints without a Transfer event. The zero address (mint source, burn sink) is
 * left out.
 */
export async function touchedHoldings(client: PublicClient, toBlock: bigint, tokens?: readonly Hex[]): Promise<Holding[]> {
  const logs = await client.request({
    method: 'eth_getLogs',
    params: [{ fromBlock: '0x0', toBlock: `0x${toBlock.toString(16)}`, topics: [Object.values(TOPICS)], ...(tokens ? { address: [...tokens] } : {}) }],
  });
  const found = new Map<string, Holding>();
  const add = (token: Hex, holder: Hex, tokenId: bigint | null) => {
    const h = { token: token.toLowerCase() as Hex, holder, tokenId };
    if (holder !== ZERO_ADDRESS) found.set(holdingKey(h), h);
  };
  for (const log of logs) {
    const [topic0, t1, t2, t3] = log.topics as Hex[];
    if (topic0 === TOPICS.transfer && (log.topics.length === 3 || log.topics.length === 4)) {
      add(log.address, topicAddress(t1), null);
      add(log.address, topicAddress(t2), null);
    } else if (topic0 === TOPICS.transferSingle || topic0 === TOPICS.transferBatch) {
      const ids =
        topic0 === TOPICS.transferSingle
          ? [decodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], log.data)[0]]
          : decodeAbiParameters([{ type: 'uint256[]' }, { type: 'uint256[]' }], log.data)[0];
      for (const id of ids) {
        add(log.address, topicAddress(t2), id);
        add(log.address, topicAddress(t3), id);
      }
    } else if ((topic0 === TOPICS.deposit || topic0 === TOPICS.withdrawal) && log.topics.length === 2) {
      add(log.address, topicAddress(t1), null);
    }
  }
  return [...found.values()];
}

/** Every token event in `from`..`to`, asked in halves where one answer would be over viem's 10 MB (a long bulk chain's). */
async function tokenLogs(client: PublicClient, from: bigint, to: bigint): Promise<Array<{ address: Hex; topics: Hex[]; data: Hex }>> {
  try {
    return (await client.request({
      method: 'eth_getLogs',
      params: [{ fromBlock: `0x${from.toString(16)}`, toBlock: `0x${to.toString(16)}`, topics: [Object.values(TOPICS)] }],
    })) as Array<{ address: Hex; topics: Hex[]; data: Hex }>;
  } catch (error) {
    if (from === to || !(error instanceof Error) || !/exceeded the size limit/.test(error.message)) throw error;
    const middle = (from + to) / 2n;
    return [...(await tokenLogs(client, from, middle)), ...(await tokenLogs(client, middle + 1n, to))];
  }
}

/**
 * Each token's transfer events up to `toBlock`, counted from the raw logs as the reference
 * counts a token's transfers: a Transfer of the ERC-20 shape (3 topics, one data word) or the
 * ERC-721 one (4 topics, no data), a TransferSingle, a TransferBatch once however many ids it
 * moves, and the Deposit and Withdrawal of the `wrapped` tokens (WETH-like: they mint and burn
 * with those events alone).
 */
export async function nodeTransferCounts(client: PublicClient, toBlock: bigint, wrapped: readonly Hex[] = []): Promise<Map<string, bigint>> {
  const logs = await tokenLogs(client, 0n, toBlock);
  const wraps = new Set(wrapped.map((w) => w.toLowerCase()));
  const counts = new Map<string, bigint>();
  for (const log of logs) {
    const token = log.address.toLowerCase();
    const [topic0] = log.topics as Hex[];
    const words = (log.data.length - 2) / 64;
    const counted =
      (topic0 === TOPICS.transfer && ((log.topics.length === 3 && words === 1) || (log.topics.length === 4 && words === 0))) ||
      ((topic0 === TOPICS.transferSingle || topic0 === TOPICS.transferBatch) && log.topics.length === 4) ||
      ((topic0 === TOPICS.deposit || topic0 === TOPICS.withdrawal) && log.topics.length === 2 && wraps.has(token));
    if (counted) counts.set(token, (counts.get(token) ?? 0n) + 1n);
  }
  return counts;
}

/** balanceOf of each holding at `block`; a contract that reverts holds nothing for anyone. */
export async function balancesAt(client: PublicClient, holdings: readonly Holding[], block: bigint): Promise<Map<string, bigint>> {
  const values = await Promise.all(
    holdings.map((h) =>
      client
        .readContract({
          address: h.token,
          abi: balanceAbi,
          functionName: 'balanceOf',
          args: h.tokenId === null ? [h.holder] : [h.holder, h.tokenId],
          blockNumber: block,
        })
        .catch(() => 0n),
    ),
  );
  return new Map(holdings.map((h, i) => [holdingKey(h), values[i]!]));
}

/** The non-zero balances at `block` of everything the chain's token events touched. */
export async function nodeBalances(client: PublicClient, block: bigint): Promise<Map<string, bigint>> {
  const balances = await balancesAt(client, await touchedHoldings(client, block), block);
  return new Map([...balances].filter(([, v]) => v > 0n));
}

/**
 * Distinct holders per token with a positive balance (ERC-1155 ids counted once per holder);
 * each of `tokens` is listed even when nobody holds it any more (a count of 0).
 */
export function holderCounts(balances: ReadonlyMap<string, bigint>, tokens: Iterable<string> = []): Map<string, number> {
  const holders = new Map<string, Set<string>>();
  for (const token of tokens) holders.set(token.toLowerCase(), new Set());
  for (const [key, value] of balances) {
    if (value <= 0n) continue;
    const [token, holder] = key.split('|') as [string, string];
    if (!holders.has(token)) holders.set(token, new Set());
    holders.get(token)!.add(holder);
  }
  return new Map([...holders].map(([token, set]) => [token, set.size]));
}

/** Per token, the sum of its positive balances (the zero address holds none: touchedHoldings leaves it out). */
export function heldSupplies(balances: ReadonlyMap<string, bigint>, tokens: Iterable<string> = []): Map<string, bigint> {
  const sums = new Map<string, bigint>();
  for (const token of tokens) sums.set(token.toLowerCase(), 0n);
  for (const [key, value] of balances) {
    if (value <= 0n) continue;
    const token = key.split('|')[0]!;
    sums.set(token, (sums.get(token) ?? 0n) + value);
  }
  return sums;
}

/**
 * What a correct index of the chain up to `head` holds, asked of the node alone: balanceOf of
 * every holding its token events touched (ERC-20, ERC-721 counts, ERC-1155 per id), the holder
 * count of every token that emitted one (0 included), each one's transfer events (`wrapped`:
 * the WETH-like tokens, nodeTransferCounts), its blocks' hashes and miners.
 */
export async function nodeState(client: PublicClient, head: bigint, wrapped: readonly Hex[] = []): Promise<IndexedState> {
  const touched = await touchedHoldings(client, head);
  const all = await balancesAt(client, touched, head);
  const balances = new Map([...all].filter(([, v]) => v !== 0n));
  const numbers = Array.from({ length: Number(head) + 1 }, (_, i) => BigInt(i));
  const blocks = await Promise.all(numbers.map((n) => client.getBlock({ blockNumber: n })));
  return {
    balances,
    holderCounts: holderCounts(balances, touched.map((h) => h.token)),
    heldSupplies: heldSupplies(balances, touched.map((h) => h.token)),
    transferCounts: await nodeTransferCounts(client, head, wrapped),
    blocks: new Map(blocks.map((b) => [b.number, { hash: b.hash, miner: b.miner.toLowerCase() as Hex }])),
  };
}

export type NodeBlock = Block<bigint, true, 'latest'>;

/** Blocks `from`..`to` with their transactions, and their receipts. */
export async function nodeBlocks(client: PublicClient, from: bigint, to: bigint): Promise<{ block: NodeBlock; receipts: TransactionReceipt[] }[]> {
  const numbers = Array.from({ length: Number(to - from + 1n) }, (_, i) => from + BigInt(i));
  return Promise.all(
    numbers.map(async (n) => {
      const block = (await client.getBlock({ blockNumber: n, includeTransactions: true })) as NodeBlock;
      const receipts = await Promise.all(block.transactions.map((tx) => client.getTransactionReceipt({ hash: tx.hash })));
      return { block, receipts };
    }),
  );
}

/**
 * The fee fields by their definitions: transaction fees Σ gasUsed × effective gas price;
 * burnt gasUsed × base fee; priority Σ gasUsed × min(maxFee − baseFee, maxPriorityFee), the
 * gas price standing in for a legacy transaction's missing fields.
 */
export function expectedFees({ block, receipts }: { block: NodeBlock; receipts: TransactionReceipt[] }) {
  const baseFee = block.baseFeePerGas ?? null;
  let transactionFees = 0n;
  let priorityFee = 0n;
  block.transactions.forEach((tx, i) => {
    const receipt = receipts[i]!;
    transactionFees += receipt.gasUsed * receipt.effectiveGasPrice;
    if (baseFee !== null) {
      const maxFee = tx.maxFeePerGas ?? tx.gasPrice!;
      const maxPriority = tx.maxPriorityFeePerGas ?? tx.gasPrice!;
      const tip = maxFee - baseFee < maxPriority ? maxFee - baseFee : maxPriority;
      priorityFee += receipt.gasUsed * tip;
    }
  });
  return {
    transaction_fees: transactionFees.toString(),
    burnt_fees: baseFee === null ? '0' : (block.gasUsed * baseFee).toString(),
    priority_fee: baseFee === null ? '0' : priorityFee.toString(),
  };
}

/** Every page of a list endpoint, following next_page_params until it is null. */
async function allPages(api: TestApi, path: string, first: Record<string, string | number> = {}): Promise<any[]> {
  const items: any[] = [];
  let query: Record<string, string | number> = first;
  for (let page = 0; page < 10_000; page++) {
    const res = await api.get(path, query);
    if (res.status !== 200) throw new Error(`GET ${path} ${JSON.stringify(query)}: ${res.status} ${JSON.stringify(res.body)}`);
    items.push(...res.body.items);
    if (res.body.next_page_params === null) return items;
    query = res.body.next_page_params;
  }
  throw new Error(`GET ${path}: paging did not end`);
}

export const servedHolders = (api: TestApi, chainId: number, token: string) => allPages(api, `/${chainId}/api/v2/tokens/${token}/holders`);

/** Every page of one ERC-1155 id's holders (`…/instances/{id}/holders`), from a first query (`items_count`, `block_number`). */
export const servedInstanceHolders = (api: TestApi, chainId: number, token: string, id: bigint, first: Record<string, string | number> = {}) =>
  allPages(api, `/${chainId}/api/v2/tokens/${token}/instances/${id}/holders`, first);

export const servedBlocksValidated = (api: TestApi, chainId: number, miner: string) =>
  allPages(api, `/${chainId}/api/v2/addresses/${miner}/blocks-validated`);

/** The holders endpoint's items as holding keys → value. */
export function servedBalances(token: string, items: readonly any[]): Map<string, bigint> {
  return new Map(
    items.map((item) => [
      holdingKey({ token: token as Hex, holder: item.address.hash, tokenId: item.token_id === null ? null : BigInt(item.token_id) }),
      BigInt(item.value),
    ]),
  );
}

/** What two indexes of the same chain must agree on, read straight from the tables. */
export interface IndexedState {
  /** holding key → value, every non-zero balance (a negative one is an error to show) */
  balances: Map<string, bigint>;
  /** token → holder_count, every token (a token nobody holds any more has 0) */
  holderCounts: Map<string, number>;
  /** token → the sum of its holders' positive balances (tokens.held_supply), every token */
  heldSupplies: Map<string, bigint>;
  /** token → its transfers (tokens.transfers_count; null: not known), every token that made one */
  transferCounts: Map<string, bigint | null>;
  /** consensus blocks by number: hash and miner */
  blocks: Map<bigint, { hash: Hex; miner: Hex }>;
}

export async function indexedState(db: Queryable, chainId: number): Promise<IndexedState> {
  const [balances, tokens, blocks] = await Promise.all([
    db.query<{ token: string; holder: string; token_id: string | null; value: string }>(
      `SELECT encode(token, 'hex') AS token, encode(holder, 'hex') AS holder, token_id::text AS token_id, value::text AS value
       FROM token_balances WHERE chain_id = $1 AND value <> 0`,
      [chainId],
    ),
    db.query<{ token: string; n: string; supply: string; transfers: string | null }>(
      "SELECT encode(address, 'hex') AS token, holder_count::text AS n, held_supply::text AS supply, transfers_count::text AS transfers FROM tokens WHERE chain_id = $1",
      [chainId],
    ),
    db.query<{ number: string; hash: string; miner: string }>(
      "SELECT number::text AS number, encode(hash, 'hex') AS hash, encode(miner, 'hex') AS miner FROM blocks WHERE chain_id = $1 AND consensus",
      [chainId],
    ),
  ]);
  return {
    balances: new Map(
      balances.map((r) => [
        holdingKey({ token: `0x${r.token}`, holder: `0x${r.holder}`, tokenId: r.token_id === null ? null : BigInt(r.token_id) }),
        BigInt(r.value),
      ]),
    ),
    holderCounts: new Map(tokens.map((r) => [`0x${r.token}`, Number(r.n)])),
    heldSupplies: new Map(tokens.map((r) => [`0x${r.token}`, BigInt(r.supply)])),
    // a token whose every transfer was orphaned keeps its row (held before the fork) at 0: left out, as the node's logs leave it
    transferCounts: new Map(tokens.filter((r) => r.transfers !== '0').map((r) => [`0x${r.token}`, r.transfers === null ? null : BigInt(r.transfers)])),
    blocks: new Map(blocks.map((r) => [BigInt(r.number), { hash: `0x${r.hash}` as Hex, miner: `0x${r.miner}` as Hex }])),
  };
}

/** Maps compare in vitest regardless of insertion order; sorted entries read better in a diff. */
export const sortedEntries = <K, V>(map: ReadonlyMap<K, V>) => [...map].sort(([a], [b]) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));

/** name/symbol/decimals as the contract answers them (null where the call reverts). */
export async function tokenMetadata(client: PublicClient, token: Hex) {
  const read = <T>(functionName: 'name' | 'symbol' | 'decimals') =>
    client.readContract({ address: token, abi: erc20Abi, functionName }).then(
      (v) => v as T,
      () => null,
    );
  const [name, symbol, decimals] = await Promise.all([read<string>('name'), read<string>('symbol'), read<number>('decimals')]);
  return { name, symbol, decimals };
}

export const checksummed = (address: string) => getAddress(address);

/** What the enrichment stored of an address: the facts the API's address objects show. */
export interface AddressFacts {
  isContract: boolean;
  proxyType: string | null;
  implementations: string;
}

/** Every row of `addresses` (address → facts), once the enrichment has checked them all. */
export async function indexedAddresses(db: Queryable, chainId: number): Promise<Map<string, AddressFacts>> {
  const rows = await db.query<{ hash: string; is_contract: boolean; proxy_type: string | null; implementations: unknown }>(
    "SELECT '0x' || encode(hash, 'hex') AS hash, is_contract, proxy_type, implementations FROM addresses WHERE chain_id = $1",
    [chainId],
  );
  return new Map(
    rows.map((r) => [
      r.hash,
      { isContract: r.is_contract, proxyType: r.proxy_type, implementations: typeof r.implementations === 'string' ? r.implementations : JSON.stringify(r.implementations) },
    ]),
  );
}

/** Whether each address has code at `block`, as the node says. */
export async function hasCodeAt(client: PublicClient, addresses: readonly string[], block: bigint): Promise<Map<string, boolean>> {
  const code = await Promise.all(addresses.map((a) => client.getCode({ address: a as Hex, blockNumber: block })));
  return new Map(addresses.map((a, i) => [a, code[i] !== undefined && !/^0x0*$/.test(code[i]!)]));
}
