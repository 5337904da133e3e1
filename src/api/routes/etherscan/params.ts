import type { Hex } from '../../../db/rows.js';
import { EtherscanError } from './envelope.js';

export type EtherscanQuery = Record<string, string | undefined>;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** That API's result window: page × offset never exceeds it, so OFFSET never scans deeper. */
export const MAX_WINDOW = 10_000;

/** A hash parameter, lowercased; `errorText` is that API's wording for this parameter. */
export function addressParam(query: EtherscanQuery, name: string, errorText: string): Hex {
  const value = query[name];
  if (value === undefined || !ADDRESS.test(value)) throw new EtherscanError(errorText);
  return value.toLowerCase() as Hex;
}

function positiveInt(value: string | undefined, fallback: number, errorText: string): number {
  if (value === undefined || value === '') return fallback;
  if (!/^[0-9]{1,9}$/.test(value) || Number(value) < 1) throw new EtherscanError(errorText);
  return Number(value);
}

/**
 * `page` (from 1) and `offset` (rows per page) → SQL offset and limit. Without them the first
 * 10,000 rows come back, as that API documents; beyond the window it refuses with its text.
 */
export function windowParams(query: EtherscanQuery): { offset: number; limit: number } {
  const page = positiveInt(query.page, 1, 'Error! Invalid page number');
  const size = positiveInt(query.offset, MAX_WINDOW, 'Error! Invalid offset');
  if (page * size > MAX_WINDOW) {
    throw new EtherscanError(`Result window is too large, PageNo x Offset size must be less than or equal to ${MAX_WINDOW}`);
  }
  return { offset: (page - 1) * size, limit: size };
}
