/**
 * Token transfer events → transfers. One ABI signature, Transfer(address,address,uint256), serves
 * both ERC-20 and ERC-721; they differ only in which arguments are indexed, so the number of
 * topics tells them apart:
 *   3 topics + 32 data bytes  → ERC-20 (value in data)
 *   4 topics + no data        → ERC-721 (token id in topic 3)
 *   1 topic  + 96 data bytes  → ERC-721 without indexed arguments (CryptoKitties and its era)
 * ERC-1155 has TransferSingle / TransferBatch. Wrapped native tokens (WETH) mint and burn with
 * Deposit / Withdrawal events instead of Transfer.
 *
 * Anything that does not have exactly the expected shape is skipped: any contract can emit a log
 * with these topics, and one odd contract must not stop indexing.
 */
import { decodeAbiParameters, toEventSelector } from 'viem';
import type { Hex, TokenType } from '../db/rows.js';
import { hexByteLength, lowerHex, wordToAddress, ZERO_ADDRESS } from './hex.js';
import { parseQuantity, toSafeNumber } from '../rpc/quantity.js';
import type { RpcLog } from '../rpc/types.js';

export const TRANSFER_TOPIC = toEventSelector('Transfer(address,address,uint256)');
export const TRANSFER_SINGLE_TOPIC = toEventSelector('TransferSingle(address,address,address,uint256,uint256)');
export const TRANSFER_BATCH_TOPIC = toEventSelector('TransferBatch(address,address,address,uint256[],uint256[])');
export const DEPOSIT_TOPIC = toEventSelector('Deposit(address,uint256)');
export const WITHDRAWAL_TOPIC = toEventSelector('Withdrawal(address,uint256)');

/** Every event this module decodes, for an eth_getLogs `topics[0]` filter. */
export const TOKEN_EVENT_TOPICS: readonly Hex[] = [
  TRANSFER_TOPIC,
  TRANSFER_SINGLE_TOPIC,
  TRANSFER_BATCH_TOPIC,
  DEPOSIT_TOPIC,
  WITHDRAWAL_TOPIC,
];

/** `topics` for eth_getLogs: any of the token events in position 0. */
export function tokenEventTopicsFilter(options: { wrappedNative?: boolean } = {}): Hex[][] {
  const wrapped = options.wrappedNative ?? true;
  return [TOKEN_EVENT_TOPICS.filter((t) => wrapped || (t !== DEPOSIT_TOPIC && t !== WITHDRAWAL_TOPIC))];
}

export interface TokenTransfer {
  token: Hex;
  from: Hex;
  to: Hex;
  /** null for ERC-20 */
  tokenId: bigint | null;
  /** amount; 1 for an ERC-721 transfer */
  value: bigint;
  /** as the log's shape says; the token contract may later turn out to be something else */
  tokenType: TokenType;
  logIndex: number;
  blockNumber: bigint;
  blockHash: Hex;
  txHash: Hex;
  /** position inside an ERC-1155 TransferBatch (one log, several transfers); null otherwise */
  batchIndex: number | null;
}

export interface DecodeTokenTransfersOptions {
  /**
   * Contracts whose Deposit/Withdrawal events are mints/burns (WETH and its kin). The same event
   * signatures are common in staking and vault contracts that are not tokens, so they are only
   * decoded for the contracts listed here.
   */
  wrappedNativeTokens?: Iterable<string>;
}

type Placement = Omit<TokenTransfer, 'from' | 'to' | 'tokenId' | 'value' | 'tokenType' | 'batchIndex'>;

// An explicit literal in the interface's key order: a spread of `place` takes V8's slow
// path and, on the indexer's hot path, cost more than all the decoding around it.
function transfer(
  place: Placement,
  tokenType: TokenType,
  from: Hex,
  to: Hex,
  tokenId: bigint | null,
  value: bigint,
  batchIndex: number | null = null,
): TokenTransfer {
  return {
    token: place.token,
    from,
    to,
    tokenId,
    value,
    tokenType,
    logIndex: place.logIndex,
    blockNumber: place.blockNumber,
    blockHash: place.blockHash,
    txHash: place.txHash,
    batchIndex,
  };
}

const HEX_DATA = /^0x[0-9a-fA-F]*$/;

/** Whether data is exactly `count` 32-byte words. */
function isWords(data: Hex, count: number): boolean {
  return data.length === 2 + count * 64 && HEX_DATA.test(data);
}

/** Word `i` of data already checked with isWords. */
function word(data: Hex, i: number): Hex {
  return `0x${data.slice(2 + i * 64, 2 + (i + 1) * 64)}`;
}

function decodeTransfer(log: RpcLog, place: Placement, out: TokenTransfer[]): void {
  const { topics, data } = log;
  if (topics.length === 3) {
    const from = wordToAddress(topics[1]!);
    const to = wordToAddress(topics[2]!);
    // a single validated word is the amount itself: BigInt reads it without slicing
    if (from && to && isWords(data, 1)) out.push(transfer(place, 'ERC-20', from, to, null, BigInt(data)));
    return;
  }
  if (topics.length === 4) {
    const from = wordToAddress(topics[1]!);
    const to = wordToAddress(topics[2]!);
    const id = topics[3]!;
    if (from && to && isWords(id, 1) && data.length === 2 && HEX_DATA.test(data)) {
      out.push(transfer(place, 'ERC-721', from, to, BigInt(id), 1n));
    }
    return;
  }
  if (topics.length === 1 && isWords(data, 3)) {
    const from = wordToAddress(word(data, 0));
    const to = wordToAddress(word(data, 1));
    if (from && to) out.push(transfer(place, 'ERC-721', from, to, BigInt(word(data, 2)), 1n));
  }
}

function decodeTransferSingle(log: RpcLog, place: Placement, out: TokenTransfer[]): void {
  const { topics, data } = log;
  if (topics.length !== 4 || !isWords(data, 2)) return;
  const from = wordToAddress(topics[2]!);
  const to = wordToAddress(topics[3]!);
  if (from && to) out.push(transfer(place, 'ERC-1155', from, to, BigInt(word(data, 0)), BigInt(word(data, 1))));
}

const BATCH_PARAMETERS = [{ type: 'uint256[]' }, { type: 'uint256[]' }] as const;

function decodeTransferBatch(log: RpcLog, place: Placement, out: TokenTransfer[]): void {
  const [, , t2, t3] = log.topics;
  const from = log.topics.length === 4 && t2 ? wordToAddress(t2) : null;
  const to = log.topics.length === 4 && t3 ? wordToAddress(t3) : null;
  if (!from || !to || hexByteLength(log.data) === null) return;
  let ids: readonly bigint[];
  let values: readonly bigint[];
  try {
    [ids, values] = decodeAbiParameters(BATCH_PARAMETERS, log.data);
  } catch {
    return;
  }
  if (ids.length !== values.length) return;
  ids.forEach((id, i) => out.push(transfer(place, 'ERC-1155', from, to, id, values[i] ?? 0n, i)));
}

/** The transfers decoded from a Deposit or a Withdrawal (decodeTokenTransfers drops those a Transfer says already). */
const fromWraps = new WeakSet<TokenTransfer>();

function decodeWrappedNative(log: RpcLog, place: Placement, minting: boolean, out: TokenTransfer[]): void {
  const account = log.topics.length === 2 ? wordToAddress(log.topics[1]!) : null;
  if (!account || !isWords(log.data, 1)) return;
  const value = BigInt(log.data);
  const wrap = minting ? transfer(place, 'ERC-20', ZERO_ADDRESS, account, null, value) : transfer(place, 'ERC-20', account, ZERO_ADDRESS, null, value);
  fromWraps.add(wrap);
  out.push(wrap);
}

const sameMove = (t: TokenTransfer) => `${t.txHash}|${t.token}|${t.from}|${t.to}|${t.value}`;

/**
 * WETH9 says a wrap with Deposit alone; a token that also emits the Transfer from the zero
 * address for it (a vault's shares, a wrapper built on an ERC-20 base) would be counted twice:
 * there the Transfer counts and the wrap event, the same move in the same transaction, does not.
 */
function withoutRepeatedWraps(transfers: TokenTransfer[]): TokenTransfer[] {
  if (!transfers.some((t) => fromWraps.has(t))) return transfers;
  const said = new Set(transfers.filter((t) => !fromWraps.has(t)).map(sameMove));
  return transfers.filter((t) => !fromWraps.has(t) || !said.has(sameMove(t)));
}

/** Appends the transfers in one log to `out` (several for an ERC-1155 batch, none for anything else). */
function decodeInto(log: RpcLog, wrappedNativeTokens: ReadonlySet<string>, out: TokenTransfer[]): void {
  // Pending logs have no position yet; removed logs were reorged out.
  if (log.removed || log.blockNumber === null || log.blockHash === null || log.transactionHash === null || log.logIndex === null) {
    return;
  }
  const topic0 = log.topics[0]?.toLowerCase();
  if (topic0 === undefined) return;
  const place: Placement = {
    token: lowerHex(log.address),
    logIndex: toSafeNumber(parseQuantity(log.logIndex), 'log index'),
    blockNumber: parseQuantity(log.blockNumber),
    blockHash: lowerHex(log.blockHash),
    txHash: lowerHex(log.transactionHash),
  };
  switch (topic0) {
    case TRANSFER_TOPIC:
      return decodeTransfer(log, place, out);
    case TRANSFER_SINGLE_TOPIC:
      return decodeTransferSingle(log, place, out);
    case TRANSFER_BATCH_TOPIC:
      return decodeTransferBatch(log, place, out);
    case DEPOSIT_TOPIC:
      if (wrappedNativeTokens.has(place.token)) decodeWrappedNative(log, place, true, out);
      return;
    case WITHDRAWAL_TOPIC:
      if (wrappedNativeTokens.has(place.token)) decodeWrappedNative(log, place, false, out);
      return;
    default:
      return;
  }
}

export function decodeTokenTransfers(logs: readonly RpcLog[], options: DecodeTokenTransfersOptions = {}): TokenTransfer[] {
  const wrapped = new Set([...(options.wrappedNativeTokens ?? [])].map((a) => a.toLowerCase()));
  const out: TokenTransfer[] = [];
  for (const log of logs) decodeInto(log, wrapped, out);
  return withoutRepeatedWraps(out);
}
