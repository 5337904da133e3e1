/**
 * Array parameters written as PostgreSQL array literals, for both engines. The bulk writes
 * pass a batch's columns as arrays (`unnest($n::text[])`, tens of thousands of elements); the
 * drivers' own serializers quote and escape every element with two regular-expression
 * replacements each (pg's `arrayString`, PGlite's alike), ~50 ms of the event loop for one
 * 37,000-change balance write against ~10 ms here (BENCHMARKS.md). Their elements are nearly
 * all hex digits and decimal integers, which the literal syntax takes unquoted; anything else
 * is quoted as the drivers would. Both drivers pass a string parameter through as it is, and
 * the server parses it against the parameter's array type.
 */

/** What an element may be without quotes: no delimiter, quote, backslash, brace or space. */
const UNQUOTED = /^[0-9A-Za-z_.+:-]+$/;
/** A character no unquoted element may hold, the delimiter apart (counted on its own). */
const NOT_UNQUOTED = /[^0-9A-Za-z_.+:,-]/;
const NULL_WORD = /^null$/i;
const ESCAPED = /["\\]/g;

function element(value: string): string {
  return UNQUOTED.test(value) && !NULL_WORD.test(value) ? value : `"${value.replace(ESCAPED, '\\$&')}"`;
}

function commas(text: string): number {
  let n = 0;
  for (let at = text.indexOf(','); at !== -1; at = text.indexOf(',', at + 1)) n++;
  return n;
}

/**
 * A one-dimensional array of strings, numbers, bigints and nulls as its literal; any other
 * array (nested, Buffers, booleans, dates) is returned as it is, for the driver to serialize.
 * The common case is checked once over the joined text, not element by element: no element
 * holds anything but the unquoted characters (the commas are the n - 1 delimiters), none is
 * empty or the word NULL.
 */
export function arrayLiteral(values: readonly unknown[]): string | readonly unknown[] {
  const parts = new Array<string>(values.length);
  let plain = true;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) parts[i] = 'NULL';
    else if (typeof v === 'string') {
      parts[i] = v;
      if (v.length === 0 || (v.length === 4 && NULL_WORD.test(v))) plain = false;
    } else if (typeof v === 'bigint' || (typeof v === 'number' && Number.isFinite(v))) parts[i] = String(v);
    else return values;
  }
  const joined = parts.join(',');
  if (plain && !NOT_UNQUOTED.test(joined) && commas(joined) === Math.max(0, values.length - 1)) return `{${joined}}`;
  return `{${parts.map((p, i) => (values[i] === null || values[i] === undefined ? p : element(p))).join(',')}}`;
}

/** A statement's parameters with every array written as its literal (arrayLiteral). */
export function withArrayLiterals(params: readonly unknown[] | undefined): unknown[] | undefined {
  if (params === undefined || !params.some(Array.isArray)) return params as unknown[] | undefined;
  return params.map((p) => (Array.isArray(p) ? arrayLiteral(p) : p));
}
