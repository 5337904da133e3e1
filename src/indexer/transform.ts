import type { BlockWithReceipts } from '../evm/fetch-blocks.js';
import { buildBlockRow, buildUncleRow } from '../evm/block-row.js';
import type { BlockTraceSummary } from '../evm/traces.js';
import { decodeTokenTransfers, type TokenTransfer } from '../evm/token-events.js';
import { ZERO_ADDRESS } from '../evm/hex.js';
import type { Hex, TokenType } from '../db/rows.js';
import type { BlockRow } from '../db/model/block.js';
import type { RpcBlock } from '../rpc/types.js';
import { chainFieldsOf } from '../chains/index.js';
import type { BalanceDelta } from '../db/queries/write-balances.js';
import { decodeEnsEvents, type EnsEvent, type ReverseNode } from '../evm/ens-events.js';

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
  blockDeltas: Array<BalanceDelta & { blockNumber: bigint }>;
  /** net change per block, for every block: the balance history (write-balances.ts applyBlockChanges); null: not kept */
  history: Array<BalanceDelta & { blockNumber: bigint }> | null;
  /** token contracts seen, with the type their events imply */
  tokens: Map<Hex, TokenType>;
  /** the block of each token's first event in the batch */
  tokenFirstBlock: Map<Hex, bigint>;
  /** holders, miners and token contracts, for the address enrichment */
  addresses: Set<Hex>;
  /** ENS events of the batch, when the chain follows an ENS registry */
  ens?: { registry: Hex; events: EnsEvent[]; reverse: ReverseNode[] };
}

export interface TransformOptions {
  chainId: number;
  /** WETH-like contracts whose Deposit/Withdrawal events mint and burn */
  wrappedNativeTokens: ReadonlySet<string>;
  /** blocks above this number keep per-block deltas (the reorg window) */
  recordAbove: bigint;
  /** the ENS registry whose names the chain follows (config `ens`), if any */
  ensRegistry?: Hex | null;
  /** per-block changes for the balance history (default true; false only in bench:index's baseline, bench/lib/indexer-without-history.ts) */
  keepHistory?: boolean;
}

class DeltaSum {
  /** in order of first appearance */
  private readonly entries: BalanceDelta[] = [];
  // token → holder (with the id, for ERC-1155) → entry: no key string is built per transfer for
  // the common case, and the token level is shared by all of a token's holders.
  private readonly byToken = new Map<Hex, Map<string, BalanceDelta>>();
  add(token: Hex, holder: Hex, tokenId: bigint | null, delta: bigint): void {
    // The zero address is where mints come from and burns go: never a holder.
    if (holder === ZERO_ADDRESS || delta === 0n) return;
    let byHolder = this.byToken.get(token);
    if (byHolder === undefined) {
      byHolder = new Map();
      this.byToken.set(token, byHolder);
    }
    const k = tokenId === null ? holder : `${holder}|${tokenId}`;
    const entry = byHolder.get(k);
    if (entry) {
      entry.delta += delta;
    } else {
      const created: BalanceDelta = { token, holder, tokenId, delta };
      byHolder.set(k, created);
      this.entries.push(created);
    }
  }
  nonZero(): BalanceDelta[] {
    return this.entries.filter((d) => d.delta !== 0n);
  }
}

/** A block with everything fetched for it. */
export type FetchedBlock = BlockWithReceipts & { traces: BlockTraceSummary | null; uncles: readonly RpcBlock[] };

export function transformBatch(fetched: readonly FetchedBlock[], options: TransformOptions): IndexBatch {
  const batch = new DeltaSum();
  const blockDeltas: IndexBatch['blockDeltas'] = [];
  const history: IndexBatch['history'] = (options.keepHistory ?? true) ? [] : null;
  const tokens = new Map<Hex, TokenType>();
  const tokenFirstBlock = new Map<Hex, bigint>();
  const addresses = new Set<Hex>();
  const blocks: BlockRow[] = [];
  const uncles: BlockRow[] = [];
  let transfers = 0;
  const registry = options.ensRegistry ?? null;
  const ens = registry === null ? undefined : { registry, events: [] as EnsEvent[], reverse: [] as ReverseNode[] };
  for (const { block, receipts, traces, uncles: blockUncles } of fetched) {
    if (ens) {
      const found = decodeEnsEvents(receipts, ens.registry);
      ens.events.push(...found.events);
      ens.reverse.push(...found.reverse);
    }
    const row: BlockRow = { ...buildBlockRow(block, receipts, traces, { chainId: options.chainId }), chainFields: chainFieldsOf(block) };
    blocks.push(row);
    addresses.add(row.miner);
    for (const uncle of blockUncles) {
      const uncleRow: BlockRow = { ...buildUncleRow(uncle, { chainId: options.chainId }), chainFields: chainFieldsOf(uncle) };
      uncles.push(uncleRow);
      addresses.add(uncleRow.miner);
    }
    // Per-block sums for the history; the blocks a rollback may undo also record them in the
    // reorg window's balance_changes (in a long backfill, almost none).
    const inWindow = row.number > options.recordAbove;
    const perBlock = history !== null || inWindow ? new DeltaSum() : null;
    const logs = receipts.flatMap((r) => r.logs);
    const decoded: TokenTransfer[] = decodeTokenTransfers(logs, { wrappedNativeTokens: options.wrappedNativeTokens });
    transfers += decoded.length;
    for (const t of decoded) {
      if (!tokens.has(t.token)) {
        tokens.set(t.token, t.tokenType);
        tokenFirstBlock.set(t.token, row.number);
      }
      addresses.add(t.token);
      // Balances are per id only for ERC-1155; an ERC-721 balance is the count of NFTs held.
      const id = t.tokenType === 'ERC-1155' ? t.tokenId : null;
      const sent = -t.value;
      batch.add(t.token, t.from, id, sent);
      batch.add(t.token, t.to, id, t.value);
      perBlock?.add(t.token, t.from, id, sent);
      perBlock?.add(t.token, t.to, id, t.value);
      if (t.from !== ZERO_ADDRESS) addresses.add(t.from);
      if (t.to !== ZERO_ADDRESS) addresses.add(t.to);
    }
    for (const d of perBlock?.nonZero() ?? []) {
      const change = { token: d.token, holder: d.holder, tokenId: d.tokenId, delta: d.delta, blockNumber: row.number };
      history?.push(change);
      if (inWindow) blockDeltas.push(change);
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
    history,
    tokens,
    tokenFirstBlock,
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
