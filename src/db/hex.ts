import type { Hex } from './rows.js';
import { ZERO_ADDRESS } from '../evm/hex.js';

/** 0x-hex → bytes for a bytea parameter (Buffer works on both engines). */
export function toBytea(hex: string): Buffer {
  return Buffer.from(hex.slice(2), 'hex');
}

/** encode(col, 'hex') output → lowercase 0x-hex */
export function fromHexText(text: string): Hex {
  return `0x${text}`;
}

/** Hex strings without their 0x, for `decode(unnest($n::text[]), 'hex')` in bulk writes. */
export function hexArray(values: readonly string[]): string[] {
  return values.map((v) => v.slice(2).toLowerCase());
}

/** An ERC-1155 token id for a `numeric[]` bulk parameter (null: no id). */
export const tokenIdText = (id: bigint | null): string | null => (id === null ? null : id.toString());

/** The zero address as a bytea literal for SQL text (never a holder: mints come from it, burns go to it). */
export const ZERO_ADDRESS_BYTEA = `'\\x${ZERO_ADDRESS.slice(2)}'::bytea`;
