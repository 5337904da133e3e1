/**
 * A table's columns, defined once: each column's SQL name and codec. From such a definition come
 * the row type, the bulk upsert (one `INSERT … SELECT FROM unnest(arrays)` statement), the select
 * list and the row reader, so adding a column is one line in the model (plus its migration).
 *
 * Hashes travel as hex text (PGlite decodes bytea parameters slowly), amounts as decimal text:
 * a uint256 never passes through a JS number.
 */
import type { Hex } from '../rows.js';

/** How one column's values travel between code and SQL. */
export interface Codec<T> {
  /** element type of the unnest array parameter a bulk write passes */
  readonly arrayType: string;
  /** SQL turning the unnest column `ref` into the column's type */
  fromParam(ref: string): string;
  /** SQL selecting the column `ref` in the form `read` takes */
  select(ref: string): string;
  write(value: T): unknown;
  read(raw: unknown): T;
}

export interface Column<T> {
  readonly name: string;
  readonly codec: Codec<NonNullable<T>>;
  readonly nullable: boolean;
  /** phantom: the column's value type in code */
  readonly _type?: T;
}

// `any`: a column of any value type (Column<unknown> would not accept Column<bigint>: its codec takes T)
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Columns = Readonly<Record<string, Column<any>>>;
export type ValueOf<C> = C extends Column<infer T> ? T : never;
/** The row type a column definition describes. */
export type RowOf<Cs extends Columns> = { -readonly [K in keyof Cs]: ValueOf<Cs[K]> };

export function column<T>(name: string, codec: Codec<T>): Column<T> {
  return { name, codec: codec as Codec<NonNullable<T>>, nullable: false };
}

export function nullable<T>(c: Column<T>): Column<T | null> {
  return { ...c, nullable: true } as Column<T | null>;
}

/** bytea ⇄ lowercase 0x-hex */
export const bytes: Codec<Hex> = {
  arrayType: 'text',
  fromParam: (ref) => `decode(${ref}, 'hex')`,
  select: (ref) => `encode(${ref}, 'hex')`,
  write: (v) => v.slice(2).toLowerCase(),
  read: (raw) => `0x${raw as string}`,
};

const integerText = (arrayType: string): Codec<bigint> => ({
  arrayType,
  fromParam: (ref) => ref,
  select: (ref) => `${ref}::text`,
  write: (v) => v.toString(),
  read: (raw) => BigInt(raw as string),
});

/** A type both drivers hand over as the JS value itself, in both directions. */
const asIs = <T>(arrayType: string): Codec<T> => ({
  arrayType,
  fromParam: (ref) => ref,
  select: (ref) => ref,
  write: (v) => v,
  read: (raw) => raw as T,
});

/** text ⇄ string */
export const text: Codec<string> = asIs('text');

/** bigint ⇄ bigint (block numbers, timestamps, sizes) */
export const int8: Codec<bigint> = integerText('bigint');
/** numeric(78,0) ⇄ bigint (uint256 amounts) */
export const uint256: Codec<bigint> = integerText('numeric');

/** integer ⇄ number (counts) */
export const int4: Codec<number> = asIs('int');

/** bigint ⇄ number, for ids that always fit a JS number (chain ids) */
export const int8Number: Codec<number> = {
  arrayType: 'bigint',
  fromParam: (ref) => ref,
  select: (ref) => `${ref}::text`,
  write: (v) => v,
  read: (raw) => Number(raw),
};

export const bool: Codec<boolean> = asIs('bool');

/**
 * jsonb ⇄ T, through an optional stored form (e.g. bigint amounts kept as decimal strings).
 * pg and PGlite both hand jsonb back parsed; a string is parsed here for drivers that do not.
 */
export function json<T, Stored = T>(
  toStored: (value: T) => Stored = (v) => v as unknown as Stored,
  fromStored: (stored: Stored) => T = (s) => s as unknown as T,
): Codec<T> {
  return {
    arrayType: 'text',
    fromParam: (ref) => `${ref}::jsonb`,
    select: (ref) => ref,
    write: (v) => JSON.stringify(toStored(v)),
    read: (raw) => fromStored((typeof raw === 'string' ? JSON.parse(raw) : raw) as Stored),
  };
}

function writeValue(c: Column<unknown>, value: unknown): unknown {
  return value === null || value === undefined ? null : c.codec.write(value as never);
}

function readValue(c: Column<unknown>, raw: unknown): unknown {
  return raw === null || raw === undefined ? null : c.codec.read(raw);
}

export interface UpsertOptions<Cs extends Columns> {
  /** the conflict target, e.g. `(chain_id, hash)` */
  conflict: string;
  /** columns a re-written row replaces; the others keep their first value */
  update: ReadonlyArray<keyof Cs & string>;
  /** replace only rows matching this condition (on the table's own name); others stay as they are */
  updateWhere?: string;
}

/**
 * A bulk upsert of `table` from one array parameter per column, in the columns' order. The text
 * depends only on the definition: build it once per table.
 */
export function upsertStatement<Cs extends Columns>(table: string, columns: Cs, options: UpsertOptions<Cs>): string {
  const entries = Object.values(columns);
  const arrays = entries.map((c, i) => `$${i + 1}::${c.codec.arrayType}[]`).join(', ');
  const names = entries.map((c) => c.name).join(', ');
  const values = entries.map((c) => c.codec.fromParam(`u.${c.name}`)).join(', ');
  const updates = options.update.map((k) => `${columns[k]!.name} = excluded.${columns[k]!.name}`).join(', ');
  const where = options.updateWhere ? ` WHERE ${options.updateWhere}` : '';
  return `INSERT INTO ${table} (${names})
    SELECT ${values} FROM unnest(${arrays}) AS u(${names})
    ON CONFLICT ${options.conflict} DO ${updates ? `UPDATE SET ${updates}${where}` : 'NOTHING'}`;
}

/** The array parameters of `upsertStatement` for these rows. */
export function upsertParams<Cs extends Columns>(columns: Cs, rows: ReadonlyArray<RowOf<Cs>>): unknown[][] {
  return Object.entries(columns).map(([key, c]) => rows.map((row) => writeValue(c, (row as Record<string, unknown>)[key])));
}

/**
 * `alias.column AS prefix+column, …` for the given columns (all by default), in the form the
 * row reader takes.
 */
export function selectList<Cs extends Columns>(columns: Cs, alias: string, prefix = ''): string {
  return Object.values(columns)
    .map((c) => `${c.codec.select(`${alias}.${c.name}`)} AS ${prefix}${c.name}`)
    .join(', ');
}

/** A typed row from a result row selected with `selectList`. */
export function readRow<Cs extends Columns>(columns: Cs, raw: Record<string, unknown>, prefix = ''): RowOf<Cs> {
  const row: Record<string, unknown> = {};
  for (const [key, c] of Object.entries(columns)) row[key] = readValue(c, raw[`${prefix}${c.name}`]);
  return row as RowOf<Cs>;
}

/** Some columns of the definition, e.g. those an index holds. */
export function pickColumns<Cs extends Columns, K extends keyof Cs>(columns: Cs, ...keys: K[]): Pick<Cs, K> {
  const some: Record<string, Column<unknown>> = {};
  for (const k of keys) some[k as string] = columns[k]!;
  return some as Pick<Cs, K>;
}

/** The definition without some columns, e.g. those a page does not read. */
export function omitColumns<Cs extends Columns, K extends keyof Cs>(columns: Cs, ...keys: K[]): Omit<Cs, K> {
  const rest: Record<string, Column<unknown>> = { ...columns };
  for (const k of keys) delete rest[k as string];
  return rest as Omit<Cs, K>;
}
