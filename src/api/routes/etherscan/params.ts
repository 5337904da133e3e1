import type { Hex } from '../../../db/rows.js';
import { isAddress } from '../../../evm/hex.js';
import { deepPageGate } from '../../../db/queries/read-gate.js';
import { EtherscanError, TEXT } from './envelope.js';

/** The query as the route sees it: names lowercased, a repeated name a list. */
export type EtherscanQuery = Record<string, unknown>;

// at most 18 digits: any such number fits a bigint column
const DECIMAL = /^[0-9]{1,18}$/;

/** That API's result window: page × offset never exceeds it where an action keeps it. */
export const MAX_WINDOW = 10_000;

/** A text parameter, or undefined when absent; a list (the name sent twice) is refused. */
export function textParam(query: EtherscanQuery, name: string, errorText: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new EtherscanError(errorText);
  return value;
}

/** A hash parameter, lowercased; `errorText` is that API's wording for this parameter. */
export function addressParam(query: EtherscanQuery, name: string, errorText: string): Hex {
  const value = textParam(query, name, errorText);
  if (value === undefined || !isAddress(value)) throw new EtherscanError(errorText);
  return value.toLowerCase() as Hex;
}

/** A non-negative decimal integer (a block number, a unix time), as a bigint. */
export function integerParam(query: EtherscanQuery, name: string, errorText: string): bigint {
  const value = textParam(query, name, errorText);
  if (value === undefined || !DECIMAL.test(value)) throw new EtherscanError(errorText);
  return BigInt(value);
}

/** One of a few words, in any letter case; `fallback` when absent or empty. */
export function choiceParam<T extends string>(query: EtherscanQuery, name: string, choices: readonly T[], fallback: T, errorText: string): T {
  const value = textParam(query, name, errorText);
  if (value === undefined || value === '') return fallback;
  const choice = choices.find((c) => c === value.toLowerCase());
  if (choice === undefined) throw new EtherscanError(errorText);
  return choice;
}

function positiveInt(query: EtherscanQuery, name: string, fallback: number, errorText: string): number {
  const value = textParam(query, name, errorText);
  if (value === undefined || value === '') return fallback;
  if (!/^[0-9]{1,9}$/.test(value) || Number(value) < 1) throw new EtherscanError(errorText);
  return Number(value);
}

export type SortOrder = 'asc' | 'desc';

export interface PageWindow {
  offset: number;
  limit: number;
  sort: SortOrder;
}

/**
 * `page` (from 1), `offset` (rows per page, at most 10,000) and `sort` → SQL offset, limit and
 * direction. Without page and offset the first 10,000 rows come back. `deep: false` keeps that
 * API's result window (page × offset ≤ 10,000, refused beyond with its text); `deep: true`
 * lets any page be read, each one range scan of the action's index.
 */
export function pageWindow(query: EtherscanQuery, options: { deep: boolean; sort: SortOrder }): PageWindow {
  const page = positiveInt(query, 'page', 1, TEXT.page);
  const size = positiveInt(query, 'offset', MAX_WINDOW, TEXT.offset);
  const sort = choiceParam(query, 'sort', ['asc', 'desc'] as const, options.sort, TEXT.sort);
  // where any page may be read, the window's text would say what is not so: the page size is what is wrong
  if (options.deep && size > MAX_WINDOW) throw new EtherscanError(TEXT.offset);
  if (size > MAX_WINDOW || (!options.deep && page * size > MAX_WINDOW)) throw new EtherscanError(TEXT.window);
  return { offset: (page - 1) * size, limit: size, sort };
}

/**
 * Reads a window of a list: at once within that API's own window (the first MAX_WINDOW rows),
 * past it under the process's deep-page gate (read-gate.ts), since such a page walks every row
 * before it (seconds at millions of holders) and a few clients could otherwise hold every
 * connection of the pool. `list` names the list (action, chain, address, block); the same
 * window of it asked again while it is read shares the read.
 */
export function readWindow<T>(db: object, list: string, window: PageWindow, read: () => Promise<T>): Promise<T> {
  if (window.offset + window.limit <= MAX_WINDOW) return read();
  return deepPageGate.run(db, `${list}:${window.offset}:${window.limit}:${window.sort}`, read);
}

/** The parameter descriptions of a paged action (README, OpenAPI). */
export const PAGING_PARAMETERS = {
  page: 'page number, from 1',
  offset: 'rows per page, at most 10000 (default 10000)',
  sort: 'asc or desc',
} as const;
