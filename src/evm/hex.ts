/** Hex helpers for raw EVM data: addresses, words, fixed-width fields. */
import type { Hex } from '../db/rows.js';

export function lowerHex(value: string): Hex {
  return value.toLowerCase() as Hex;
}

/** Byte length of 0x-prefixed data; null when it is not whole bytes of hex. */
export function hexByteLength(value: string): number | null {
  if (!/^0x([0-9a-fA-F]{2})*$/.test(value)) return null;
  return (value.length - 2) / 2;
}

/** Fixed-width lowercase hex of `bytes` bytes, e.g. an 8-byte block nonce. */
export function padHex(value: bigint, bytes: number): Hex {
  return `0x${value.toString(16).padStart(bytes * 2, '0')}`;
}

/** An address as users write it: 0x and 40 hex digits, any case. The one definition the
 * settings, label files, exports and the Etherscan-style parameters check against (the v2
 * API's schemas keep the reference's own spelling, `HASH_PATTERN`, which its errors quote). */
export const ADDRESS_PATTERN = '^0x[0-9a-fA-F]{40}$';
const ADDRESS = new RegExp(ADDRESS_PATTERN);

export function isAddress(value: string): boolean {
  return ADDRESS.test(value);
}

const ADDRESS_WORD = /^0x0{24}[0-9a-fA-F]{40}$/;

/** The last 20 bytes of a 32-byte word, or null when the upper 12 bytes are not zero. */
export function wordToAddress(word: string): Hex | null {
  if (!ADDRESS_WORD.test(word)) return null;
  return `0x${word.slice(26).toLowerCase()}`;
}

export const ZERO_ADDRESS: Hex = '0x0000000000000000000000000000000000000000';
