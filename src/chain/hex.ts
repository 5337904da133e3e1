/**
 * Hex helpers for raw node JSON. Amounts stay bigint end to end; a JS number is produced only
 * where the row type asks for one, and only after checking it is exact.
 */
import type { Hex } from '../db/rows.js';

/** JSON-RPC quantity → bigint. Nodes send "0x0" for zero and occasionally upper-case digits. */
export function parseQuantity(value: string): bigint {
  if (!/^0x[0-9a-fA-F]+$/.test(value)) throw new TypeError(`not a hex quantity: ${JSON.stringify(value)}`);
  return BigInt(value);
}

export function parseOptionalQuantity(value: string | null | undefined): bigint | null {
  return value === null || value === undefined ? null : parseQuantity(value);
}

/** bigint → JSON-RPC quantity (no leading zeros). */
export function toQuantity(value: bigint | number): Hex {
  return `0x${value.toString(16)}`;
}

// once, not per call: this runs for every log
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);

/** For counters that the row types keep as JS numbers (counts, L1 block numbers). */
export function toSafeNumber(value: bigint, what: string): number {
  if (value > MAX_SAFE || value < MIN_SAFE) {
    throw new RangeError(`${what} ${value} does not fit a JS number`);
  }
  return Number(value);
}

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

const ADDRESS_WORD = /^0x0{24}[0-9a-fA-F]{40}$/;

/** The last 20 bytes of a 32-byte word, or null when the upper 12 bytes are not zero. */
export function wordToAddress(word: string): Hex | null {
  if (!ADDRESS_WORD.test(word)) return null;
  return `0x${word.slice(26).toLowerCase()}`;
}

export const ZERO_ADDRESS: Hex = '0x0000000000000000000000000000000000000000';
