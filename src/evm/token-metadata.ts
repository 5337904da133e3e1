/**
 * name / symbol / decimals / totalSupply of token contracts, as plain eth_calls that the batching
 * transport packs into few HTTP exchanges (Multicall3 is not deployed everywhere, e.g. on a
 * fresh anvil). Every call may fail on its own — many tokens lack some of these functions — and
 * a failure only makes that field null.
 */
import type { Hex } from '../db/rows.js';
import { mapInRounds } from '../rpc/concurrency.js';
import { hexByteLength, lowerHex } from './hex.js';
import { callOrNull, type BlockRef, type RpcClient } from '../rpc/client.js';

export interface TokenMetadata {
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  totalSupply: bigint | null;
}

export const TOKEN_SELECTORS = {
  name: '0x06fdde03',
  symbol: '0x95d89b41',
  decimals: '0x313ce567',
  totalSupply: '0x18160ddd',
} as const satisfies Record<keyof TokenMetadata, Hex>;

export interface FetchTokenMetadataOptions {
  block?: BlockRef;
  signal?: AbortSignal;
  /** tokens whose four calls are in flight together */
  tokensPerRound?: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

function bytesOf(data: Hex, fromByte: number, length: number): Uint8Array {
  return Buffer.from(data.slice(2 + fromByte * 2, 2 + (fromByte + length) * 2), 'hex');
}

function wordAt(data: Hex, byteOffset: number): bigint | null {
  const word = data.slice(2 + byteOffset * 2, 2 + (byteOffset + 32) * 2);
  return word.length === 64 ? BigInt(`0x${word}`) : null;
}

/** Text fit for a database column: no NUL (PostgreSQL text refuses it), null when empty. */
function cleanText(bytes: Uint8Array): string | null {
  const text = utf8.decode(bytes).replaceAll('\u0000', '').trim();
  return text === '' ? null : text;
}

/**
 * A `string` return value, or a `bytes32` one: tokens from before the ERC-20 text settled (MKR,
 * SAI, ...) return their name and symbol as NUL-padded bytes32.
 */
export function decodeStringResult(data: Hex): string | null {
  const length = hexByteLength(data);
  if (length === null || length === 0) return null;
  if (length === 32) return cleanText(bytesOf(data, 0, 32));
  const offset = wordAt(data, 0);
  if (offset === null || offset + 32n > BigInt(length)) return null;
  const size = wordAt(data, Number(offset));
  if (size === null || offset + 32n + size > BigInt(length)) return null;
  return cleanText(bytesOf(data, Number(offset) + 32, Number(size)));
}

export function decodeUintResult(data: Hex): bigint | null {
  const length = hexByteLength(data);
  if (length === null || length < 32) return null;
  return wordAt(data, 0);
}

/** decimals() is a uint8; anything larger is not a decimals value. */
export function decodeDecimalsResult(data: Hex): number | null {
  const value = decodeUintResult(data);
  return value !== null && value <= 255n ? Number(value) : null;
}

async function metadataOf(rpc: RpcClient, token: Hex, options: FetchTokenMetadataOptions): Promise<TokenMetadata> {
  const block = options.block ?? 'latest';
  const requestOptions = options.signal ? { signal: options.signal } : {};
  const call = (selector: Hex) => callOrNull(rpc, token, selector, block, requestOptions);
  const [name, symbol, decimals, totalSupply] = await Promise.all([
    call(TOKEN_SELECTORS.name),
    call(TOKEN_SELECTORS.symbol),
    call(TOKEN_SELECTORS.decimals),
    call(TOKEN_SELECTORS.totalSupply),
  ]);
  return {
    name: name === null ? null : decodeStringResult(name),
    symbol: symbol === null ? null : decodeStringResult(symbol),
    decimals: decimals === null ? null : decodeDecimalsResult(decimals),
    totalSupply: totalSupply === null ? null : decodeUintResult(totalSupply),
  };
}

/** Metadata per token (lowercase address). A token whose calls all fail maps to all-null fields. */
export async function fetchTokenMetadata(
  rpc: RpcClient,
  tokens: readonly string[],
  options: FetchTokenMetadataOptions = {},
): Promise<Map<Hex, TokenMetadata>> {
  const unique = [...new Set(tokens.map(lowerHex))];
  const metadata = await mapInRounds(unique, options.tokensPerRound ?? 250, (token) => metadataOf(rpc, token, options));
  return new Map(unique.map((token, i) => [token, metadata[i] as TokenMetadata]));
}
