/**
 * JSON-RPC quantities (hex-encoded integers) to and from bigint. Amounts stay bigint end to end;
 * a JS number is produced only where the row type asks for one, and only after checking it is exact.
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
