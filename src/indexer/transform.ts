import type { BlockWithReceipts } from '../evm/fetch-blocks.js';
import { buildBlockRow, buildUncleRow } from '../evm/block-row.js';
import type { BlockTraceSummary } from '../evm/traces.js';
import { decodeTokenTransfers, type TokenTransfer } from '../evm/token-events.js';
import { ZERO_ADDRESS } from '../evm/hex.js';
import type { Hex, TokenType } from '../db/rows.js';
import type { BlockRow } from '../db/model/block.js';
import type { RpcBlock } from '../rpc/types.js';
import { chainFieldsOf } from '../chains/index.js';
import type { BalanceDelta, BlockDelta, KeyChanges } from '../db/queries/write-balances.js';
import type { BlockTransfers, TokenTransfers } from '../db/queries/transfer-counts.js';
import { BalanceSum } from './balance-sum.js';
import { decodeEnsEvents, type EnsEvent, type ReverseNode } from '../evm/ens-events.js';
import type { BlockProducer } from '../evm/block-producer.js';

/** What one batch of blocks contributes to the database, before any I/O. */
export interface IndexBatch {
  from: bigint;
  to: bigint;
  blocks: BlockRow[];
  /** the blocks' uncles, as header-only non-consensus rows */
  uncles: BlockRow[];
  transfers: number;
  /** net change per (token, holder, token_id) over the batch */
  deltas: BalanceDelta[];
  /** first block of the batch whose changes are recorded for rollback; null if none */
  recordedFrom: bigint | null;
  /** net change per block, for the blocks that may still be reorganised */
  blockDeltas: BlockDelta[];
  /** every key changed in the batch with its changes per block: the balance history (write-balances.ts applyBlockChanges); null: not kept */
  history: KeyChanges[] | null;
  /** token contracts seen, with the type their events imply */
  tokens: Map<Hex, TokenType>;
  /** the block of each token's first event in the batch */
  tokenFirstBlock: Map<Hex, bigint>;
  /** each token's transfers in the batch (transferCounts) and the last block they are in; null when the chain's are not counted */
  tokenTransfers: Map<Hex, TokenTransfers> | null;
  /** each token's transfers per block, for the blocks that may still be reorganised */
  blockTransfers: BlockTransfers[];
  /** holders, miners and token contracts, for the address enrichment */
  addresses: Set<Hex>;
  /** ENS events of the batch, when the chain follows an ENS registry */
  ens?: { registry: Hex; events: EnsEvent[]; reverse: ReverseNode[] };
}

export interface DigestOptions {
  chainId: number;
  /** WETH-like contracts whose Deposit/Withdrawal events mint and burn */
  wrappedNativeTokens: ReadonlySet<string>;
  /** the ENS registry whose names the chain follows (config `ens`), if any */
  ensRegistry?: Hex | null;
  /** whose blocks they are (config `blockProducer`); default `miner` */
  blockProducer?: BlockProducer;
}

export interface TransformOptions {
  /** blocks above this number keep per-block deltas (the reorg window) */
  recordAbove: bigint;
  /**
   * whether tokens' transfers are counted (default true): not on a chain indexed from above
   * block 0, whose tokens' earlier transfers were never seen (migration 032)
   */
  countTransfers?: boolean;
  /** per-block changes for the balance history (default true; false only in bench:index's baseline, bench/lib/indexer-without-history.ts) */
  keepHistory?: boolean;
}

/** A block with everything fetched for it. */
export type FetchedBlock = BlockWithReceipts & { traces: BlockTraceSummary | null; uncles: readonly RpcBlock[] };

/**
 * What one block contributes to its batch, without the block, receipts and logs it came from.
 * Blocks are digested as they arrive (block-prefetcher.ts holds these, not FetchedBlocks): the
 * raw JSON-RPC objects, several times larger, then die young instead of waiting in the fetch
 * window long enough to be promoted to V8's old generation, whose growth is what set the
 * indexer's peak RSS (BENCHMARKS.md, memory).
 */
export interface DigestedBlock {
  row: BlockRow;
  /** the block's uncles, as header-only non-consensus rows */
  uncles: BlockRow[];
  transfers: number;
  /** each token's transfers in the block (transferCounts) */
  tokenTransfers: Map<Hex, number>;
  /** net change per (token, holder, token_id) within the block, in order of first appearance */
  changes: BlockDelta[];
  /** token contracts first seen in the block, with the type their events imply */
  tokens: Map<Hex, TokenType>;
  /** holders, miners and token contracts */
  addresses: Set<Hex>;
  ens?: { registry: Hex; events: EnsEvent[]; reverse: ReverseNode[] };
}

export function digestBlock({ block, receipts, traces, uncles: blockUncles }: FetchedBlock, options: DigestOptions): DigestedBlock {
  const registry = options.ensRegistry ?? null;
  const rowOptions = { chainId: options.chainId, blockProducer: options.blockProducer };
  const row: BlockRow = { ...buildBlockRow(block, receipts, traces, rowOptions), chainFields: chainFieldsOf(block) };
  const addresses = new Set<Hex>([row.miner]);
  const uncles: BlockRow[] = [];
  for (const uncle of blockUncles) {
    const uncleRow: BlockRow = { ...buildUncleRow(uncle, rowOptions), chainFields: chainFieldsOf(uncle) };
    uncles.push(uncleRow);
    addresses.add(uncleRow.miner);
  }
  const tokens = new Map<Hex, TokenType>();
  const sum = new BalanceSum();
  const logs = receipts.flatMap((r) => r.logs);
  const decoded: TokenTransfer[] = decodeTokenTransfers(logs, { wrappedNativeTokens: options.wrappedNativeTokens });
  for (const t of decoded) {
    if (!tokens.has(t.token)) tokens.set(t.token, t.tokenType);
    addresses.add(t.token);
    // Balances are per id only for ERC-1155; an ERC-721 balance is the count of NFTs held.
    const id = t.tokenType === 'ERC-1155' ? t.tokenId : null;
    sum.add(t.token, t.from, id, -t.value, row.number);
    sum.add(t.token, t.to, id, t.value, row.number);
    if (t.from !== ZERO_ADDRESS) addresses.add(t.from);
    if (t.to !== ZERO_ADDRESS) addresses.add(t.to);
  }
  return {
    row,
    uncles,
    transfers: decoded.length,
    tokenTransfers: transferCounts(decoded),
    changes: sum.nonZero(),
    tokens,
    addresses,
    ...(registry === null ? {} : { ens: { registry, ...decodeEnsEvents(receipts, registry) } }),
  };
}

/**
 * Transfers per token as the reference counts its token transfers: one per event, so a
 * TransferBatch of several ids is one (its later ids have a batchIndex above 0), and a wrap that
 * its token also reports with a Transfer is one (token-events.ts keeps one of the two).
 */
function transferCounts(decoded: readonly TokenTransfer[]): Map<Hex, number> {
  const counts = new Map<Hex, number>();
  for (const t of decoded) if (!t.batchIndex) counts.set(t.token, (counts.get(t.token) ?? 0) + 1);
  return counts;
}

export function transformBatch(digested: readonly DigestedBlock[], options: TransformOptions): IndexBatch {
  const batch = new BalanceSum();
  const blockDeltas: IndexBatch['blockDeltas'] = [];
  const tokens = new Map<Hex, TokenType>();
  const tokenFirstBlock = new Map<Hex, bigint>();
  const addresses = new Set<Hex>();
  const blocks: BlockRow[] = [];
  const uncles: BlockRow[] = [];
  let transfers = 0;
  const counting = options.countTransfers ?? true;
  const tokenTransfers = new Map<Hex, TokenTransfers>();
  const blockTransfers: BlockTransfers[] = [];
  let ens: IndexBatch['ens'];
  for (const block of digested) {
    const { row } = block;
    if (block.ens) {
      ens ??= { registry: block.ens.registry, events: [], reverse: [] };
      ens.events.push(...block.ens.events);
      ens.reverse.push(...block.ens.reverse);
    }
    blocks.push(row);
    uncles.push(...block.uncles);
    for (const a of block.addresses) addresses.add(a);
    for (const [token, type] of block.tokens) {
      if (!tokens.has(token)) {
        tokens.set(token, type);
        tokenFirstBlock.set(token, row.number);
      }
    }
    transfers += block.transfers;
    // The batch's sums keep each block's for the history; the blocks a rollback may undo also
    // record theirs in the reorg window's balance_changes (in a long backfill, almost none).
    const inWindow = row.number > options.recordAbove;
    if (counting) {
      for (const [token, n] of block.tokenTransfers) {
        tokenTransfers.set(token, { transfers: (tokenTransfers.get(token)?.transfers ?? 0) + n, lastBlock: row.number });
        if (inWindow) blockTransfers.push({ blockNumber: row.number, token, transfers: n });
      }
    }
    for (const d of block.changes) {
      batch.add(d.token, d.holder, d.tokenId, d.delta, row.number);
      if (inWindow) blockDeltas.push(d);
    }
  }
  const from = blocks[0]?.number ?? 0n;
  const to = blocks[blocks.length - 1]?.number ?? -1n;
  const firstRecorded = options.recordAbove + 1n > from ? options.recordAbove + 1n : from;
  return {
    from,
    to,
    recordedFrom: firstRecorded <= to ? firstRecorded : null,
    blocks,
    uncles,
    transfers,
    deltas: batch.nonZero(),
    blockDeltas,
    history: (options.keepHistory ?? true) ? batch.changed() : null,
    tokens,
    tokenFirstBlock,
    tokenTransfers: counting ? tokenTransfers : null,
    blockTransfers,
    addresses,
    ...(ens ? { ens } : {}),
  };
}

/** Block hashes must chain; a break means the node reorganised while we fetched. */
export function findLinkBreak(blocks: readonly BlockRow[], expectedParent: Hex | null): bigint | null {
  let parent = expectedParent;
  for (const b of blocks) {
    if (parent !== null && b.parentHash !== parent) return b.number;
    parent = b.hash;
  }
  return null;
}
