/**
 * The single-block route's path parameter, as the reference casts it: an integer ≥ 0 (as Elixir's
 * Integer.parse reads a whole string: optional sign, decimal digits, leading zeros allowed) or a
 * 32-byte hash. A value that is neither gets the reference's three 422 entries: the anyOf summary,
 * then each branch's own complaint, in the order its validator (open_api_spex) reports them.
 */
import type { Hex } from '../db/rows.js';
import { InvalidParameterError } from './http-error.js';

export type BlockRef = { kind: 'number'; number: bigint } | { kind: 'hash'; hash: Hex };

export const BLOCK_PARAM = 'block_hash_or_number_param';
export const FULL_HASH_PATTERN = '^0x([A-Fa-f0-9]{64})$';
const FULL_HASH = new RegExp(FULL_HASH_PATTERN);
/** An integer as the reference reads one from text (Elixir's Integer.parse of the whole string). */
export const INTEGER_TEXT = /^[+-]?[0-9]+$/;

const ANY_OF_DETAIL = 'Failed to cast value using any of: Schema(title: "FullHash", type: :string), Schema(type: :integer)';
const HASH_DETAIL = `Invalid format. Expected ~r/${FULL_HASH_PATTERN}/`;

export function parseBlockParam(raw: string): BlockRef {
  if (FULL_HASH.test(raw)) return { kind: 'hash', hash: raw.toLowerCase() as Hex };
  if (INTEGER_TEXT.test(raw)) {
    const number = BigInt(raw);
    if (number >= 0n) return { kind: 'number', number };
    return fail(`${number} is smaller than inclusive minimum 0`);
  }
  return fail('Invalid integer. Got: string');
}

function fail(integerDetail: string): never {
  throw new InvalidParameterError([
    { param: BLOCK_PARAM, detail: ANY_OF_DETAIL },
    { param: BLOCK_PARAM, detail: integerDetail },
    { param: BLOCK_PARAM, detail: HASH_DETAIL },
  ]);
}
