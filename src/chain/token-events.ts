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
import { hexByteLength, lowerHex, parseQuantity, toSafeNumber, wordToAddress, ZERO_ADDRESS } from './hex.js';
import type { RpcLog } from './rpc-types.js';

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

function transfer(
  place: Placement,
  tokenType: TokenType,
  from: Hex,
  to: Hex,
  tokenId: bigint | null,
  value: bigint,
  batchIndex: number | null = null,
): TokenTransfer {
  return { ...place, from, to, tokenId, value, tokenType, batchIndex };
}

/** Split data into 32-byte words; null unless it is exactly `count` words. */
function words(data: Hex, count: number): Hex[] | null {
  if (hexByteLength(data) !== count * 32) return null;
  return Array.from({ length: count }, (_, i) => `0x${data.slice(2 + i * 64, 2 + (i + 1) * 64)}` as Hex);
}

function decodeTransfer(log: RpcLog, place: Placement): TokenTransfer[] {
  const [, t1, t2, t3] = log.topics;
  if (log.topics.length === 3 && t1 && t2) {
    const from = wordToAddress(t1);
    const to = wordToAddress(t2);
    const data = words(log.data, 1);
    if (!from || !to || !data?.[0]) return [];
    return [transfer(place, 'ERC-20', from, to, null, parseQuantity(data[0]))];
  }
  if (log.topics.length === 4 && t1 && t2 && t3) {
    const from = wordToAddress(t1);
    const to = wordToAddress(t2);
    if (!from || !to || !/^0x[0-9a-fA-F]{64}$/.test(t3) || hexByteLength(log.data) !== 0) return [];
    return [transfer(place, 'ERC-721', from, to, parseQuantity(t3), 1n)];
  }
  if (log.topics.length === 1) {
    const data = words(log.data, 3);
    const from = data?.[0] ? wordToAddress(data[0]) : null;
    const to = data?.[1] ? wordToAddress(data[1]) : null;
    if (!from || !to || !data?.[2]) return [];
    return [transfer(place, 'ERC-721', from, to, parseQuantity(data[2]), 1n)];
  }
  return [];
}

function decodeTransferSingle(log: RpcLog, place: Placement): TokenTransfer[] {
  const [, , t2, t3] = log.topics;
  const from = log.topics.length === 4 && t2 ? wordToAddress(t2) : null;
  const to = log.topics.length === 4 && t3 ? wordToAddress(t3) : null;
  const data = words(log.data, 2);
  if (!from || !to || !data?.[0] || !data[1]) return [];
  return [transfer(place, 'ERC-1155', from, to, parseQuantity(data[0]), parseQuantity(data[1]))];
}

const BATCH_PARAMETERS = [{ type: 'uint256[]' }, { type: 'uint256[]' }] as const;

function decodeTransferBatch(log: RpcLog, place: Placement): TokenTransfer[] {
  const [, , t2, t3] = log.topics;
  const from = log.topics.length === 4 && t2 ? wordToAddress(t2) : null;
  const to = log.topics.length === 4 && t3 ? wordToAddress(t3) : null;
  if (!from || !to || hexByteLength(log.data) === null) return [];
  let ids: readonly bigint[];
  let values: readonly bigint[];
  try {
    [ids, values] = decodeAbiParameters(BATCH_PARAMETERS, log.data);
  } catch {
    return [];
  }
  if (ids.length !== values.length) return [];
  return ids.map((id, i) => transfer(place, 'ERC-1155', from, to, id, values[i] ?? 0n, i));
}

function decodeWrappedNative(log: RpcLog, place: Placement, minting: boolean): TokenTransfer[] {
  const [, t1] = log.topics;
  const account = log.topics.length === 2 && t1 ? wordToAddress(t1) : null;
  const data = words(log.data, 1);
  if (!account || !data?.[0]) return [];
  const value = parseQuantity(data[0]);
  return [
    minting
      ? transfer(place, 'ERC-20', ZERO_ADDRESS, account, null, value)
      : transfer(place, 'ERC-20', account, ZERO_ADDRESS, null, value),
  ];
}

/** Transfers in one log (several for an ERC-1155 batch, none for anything else). */
export function decodeTokenTransfer(log: RpcLog, wrappedNativeTokens: ReadonlySet<string> = new Set()): TokenTransfer[] {
  // Pending logs have no position yet; removed logs were reorged out.
  if (log.removed || log.blockNumber === null || log.blockHash === null || log.transactionHash === null || log.logIndex === null) {
    return [];
  }
  const topic0 = log.topics[0]?.toLowerCase();
  if (topic0 === undefined) return [];
  const place: Placement = {
    token: lowerHex(log.address),
    logIndex: toSafeNumber(parseQuantity(log.logIndex), 'log index'),
    blockNumber: parseQuantity(log.blockNumber),
    blockHash: lowerHex(log.blockHash),
    txHash: lowerHex(log.transactionHash),
  };
  switch (topic0) {
    case TRANSFER_TOPIC:
      return decodeTransfer(log, place);
    case TRANSFER_SINGLE_TOPIC:
      return decodeTransferSingle(log, place);
    case TRANSFER_BATCH_TOPIC:
      return decodeTransferBatch(log, place);
    case DEPOSIT_TOPIC:
      return wrappedNativeTokens.has(place.token) ? decodeWrappedNative(log, place, true) : [];
    case WITHDRAWAL_TOPIC:
      return wrappedNativeTokens.has(place.token) ? decodeWrappedNative(log, place, false) : [];
    default:
      return [];
  }
}

export function decodeTokenTransfers(logs: readonly RpcLog[], options: DecodeTokenTransfersOptions = {}): TokenTransfer[] {
  const wrapped = new Set([...(options.wrappedNativeTokens ?? [])].map((a) => a.toLowerCase()));
  return logs.flatMap((log) => decodeTokenTransfer(log, wrapped));
}
