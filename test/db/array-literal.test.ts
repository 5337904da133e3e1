import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { arrayLiteral } from '../../src/db/array-literal.js';
import { availableEngines, freshDatabase } from '../support/databases.js';

// Every array parameter goes to the server as the literal src/db/array-literal.ts writes; the
// server's parse of it is the ground truth, on both engines.
describe.each(await availableEngines())('array parameters as literals on %s', (engine) => {
  let db: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await freshDatabase(engine));
  });
  afterAll(() => drop?.());

  it('reads back every text element as it was, quoted or not', async () => {
    const values = [
      'ab01ff', '0', '-12', 'x', '', ' ', 'NULL', 'null', 'Null', 'a,b', '{a}', '"', '\\', '\\"', "it's", 'tab\there', 'line\nbreak',
      'ünïcødé ✓', '\u2028', 'a b', 'trailing ', ' leading', '1.5e+3', 'ENS.eth', 'under_score', '::', '{}', 'NULL,NULL',
    ];
    const rows = await db.query<{ v: string | null; n: string }>('SELECT v, n::text FROM unnest($1::text[]) WITH ORDINALITY AS u(v, n) ORDER BY u.n', [values]);
    expect(rows.map((r) => r.v)).toEqual(values);
  });

  it('keeps nulls apart from the word NULL, and numbers exact past 2^53 and 2^256', async () => {
    const texts = [null, 'NULL', null, 'x'];
    const numbers = [(2n ** 256n - 1n).toString(), '-1', null, '0', '9007199254740993'];
    const bigints = [2n ** 63n - 1n, -(2n ** 63n), 0n, 42];
    const [row] = await db.query<{ t: Array<string | null>; n: string; b: string; nulls: number }>(
      `SELECT $1::text[] AS t, array_to_string($2::numeric[], ',', '∅') AS n, array_to_string($3::bigint[], ',') AS b,
              (SELECT count(*) FROM unnest($1::text[]) AS x WHERE x IS NULL)::int AS nulls`,
      [texts, numbers, bigints],
    );
    expect(row!.t).toEqual(texts);
    expect(row!.nulls).toBe(2);
    expect(row!.n).toBe(`${(2n ** 256n - 1n).toString()},-1,∅,0,9007199254740993`);
    expect(row!.b).toBe('9223372036854775807,-9223372036854775808,0,42');
  });

  it('leaves an empty array empty and arrays it does not write (bytea) to the driver', async () => {
    const [row] = await db.query<{ empty: number; hex: string }>(
      "SELECT cardinality($1::text[])::int AS empty, array_to_string(ARRAY(SELECT encode(x, 'hex') FROM unnest($2::bytea[]) AS x), ',') AS hex",
      [[], [Buffer.from('00ff', 'hex'), Buffer.from('ab', 'hex')]],
    );
    expect(row).toEqual({ empty: 0, hex: '00ff,ab' });
  });
});

describe('arrayLiteral', () => {
  it('writes hex and digits unquoted and quotes the rest', () => {
    expect(arrayLiteral(['ab', '12', null, 7, 8n])).toBe('{ab,12,NULL,7,8}');
    expect(arrayLiteral(['a"b', 'c\\d', '', 'null'])).toBe('{"a\\"b","c\\\\d","","null"}');
    // a delimiter inside an element, with nothing else to give it away
    expect(arrayLiteral(['a,b', 'c'])).toBe('{"a,b",c}');
    expect(arrayLiteral(['NULL', null])).toBe('{"NULL",NULL}');
  });
  it('returns what it does not write as it was', () => {
    const buffers = [Buffer.from('00', 'hex')];
    expect(arrayLiteral(buffers)).toBe(buffers);
    const nested = [['a']];
    expect(arrayLiteral(nested)).toBe(nested);
    const odd = [Number.NaN];
    expect(arrayLiteral(odd)).toBe(odd);
  });
});
