/**
 * Compares our responses with the reference's recorded ones, key by key and JSON type by type.
 *
 * From the recordings of one file we learn, for every path, the keys present in every instance
 * (the required keys: a key only some instances carry is data, not shape) and the JSON types each
 * key takes. Paths are logical: an address object restarts at `address`, a list item at its kind
 * (`block`, `holder`), so one rule covers a miner and a holder alike.
 *
 * Our value may be null only where the reference sends null too (in some recording: an empty
 * block's burnt_fees_percentage is null in both). A non-null value must have a type the reference
 * sends there; where the reference sent only null in that file, a type it sends at the same path
 * in another file (a key no recording ever fills tells nothing of its type: the spec-derived wire
 * schema checks those).
 */
export type JsonType = 'null' | 'string' | 'number' | 'boolean' | 'array' | 'object';

export const jsonType = (v: unknown): JsonType =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : (typeof v as 'string' | 'number' | 'boolean' | 'object');

interface PathShape {
  /** object instances seen at this path */
  objects: number;
  /** per key: in how many object instances it appears, and the types it took */
  keys: Map<string, { count: number; types: Set<JsonType> }>;
}

export type Shape = Map<string, PathShape>;

/** A page's items are objects of their own kind. */
const PAGE_ITEMS: Readonly<Record<string, string>> = { 'blocks-page': 'block', 'holders-page': 'holder' };
const ITEM_KINDS = new Set(Object.values(PAGE_ITEMS));

/** Where a key's value restarts the logical path (an address object wherever it sits). */
function child(path: string, key: string, value: unknown): string {
  if ((key === 'miner' || key === 'address') && jsonType(value) === 'object') return 'address';
  if (key === 'items' && PAGE_ITEMS[path] !== undefined) return PAGE_ITEMS[path];
  return `${path}.${key}`;
}

function element(path: string): string {
  return ITEM_KINDS.has(path) ? path : `${path}[]`;
}

/** Learns the shape of the recorded values `roots` (all of one kind) at logical path `root`. */
export function learnShape(root: string, roots: readonly unknown[], shape: Shape = new Map()): Shape {
  const visit = (path: string, value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(element(path), item);
      return;
    }
    if (jsonType(value) !== 'object') return;
    let at = shape.get(path);
    if (!at) shape.set(path, (at = { objects: 0, keys: new Map() }));
    at.objects += 1;
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      let k = at.keys.get(key);
      if (!k) at.keys.set(key, (k = { count: 0, types: new Set() }));
      k.count += 1;
      k.types.add(jsonType(v));
      visit(child(path, key, v), v);
    }
  };
  for (const r of roots) visit(root, r);
  return shape;
}

export interface Difference {
  /** logical path of the key, e.g. `block.tx_count` */
  path: string;
  kind: 'not sent' | 'other type' | 'not covered';
  detail: string;
}

/** Every path where `ours` lacks a required key or sends another type than the reference. */
export function compareShape(root: string, ours: readonly unknown[], reference: Shape, allReferences: Shape): Difference[] {
  const differences = new Map<string, Difference>();
  const seen = new Set<string>();
  const add = (d: Difference) => differences.set(`${d.kind}:${d.path}`, d);
  const typesAnywhere = (path: string, key: string): Set<JsonType> => allReferences.get(path)?.keys.get(key)?.types ?? new Set();
  const nonNullTypes = (path: string, key: string): Set<JsonType> =>
    new Set([...typesAnywhere(path, key)].filter((t) => t !== 'null'));

  const visit = (path: string, value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(element(path), item);
      return;
    }
    const expected = reference.get(path);
    if (!expected || jsonType(value) !== 'object') return;
    seen.add(path);
    const object = value as Record<string, unknown>;
    for (const [key, { count, types }] of expected.keys) {
      const keyPath = `${path}.${key}`;
      if (!(key in object)) {
        if (count === expected.objects) add({ path: keyPath, kind: 'not sent', detail: `the reference sends it in all ${count} instances` });
        continue;
      }
      const type = jsonType(object[key]);
      const recorded = [...types].join('|');
      if (type === 'null') {
        if (!typesAnywhere(path, key).has('null')) add({ path: keyPath, kind: 'other type', detail: `we send null, the reference ${recorded}` });
      } else if (!types.has(type)) {
        const elsewhere = nonNullTypes(path, key);
        const onlyNull = types.size === 1 && types.has('null');
        if (!onlyNull || (elsewhere.size > 0 && !elsewhere.has(type))) {
          add({ path: keyPath, kind: 'other type', detail: `we send ${type}, the reference ${onlyNull ? [...elsewhere].join('|') : recorded}` });
        }
      }
      visit(child(path, key, object[key]), object[key]);
    }
  };
  for (const o of ours) visit(root, o);
  // an object the reference shows that our data never produced was never compared
  for (const path of reference.keys()) {
    if (!seen.has(path)) add({ path, kind: 'not covered', detail: 'our responses hold no object at this path to compare' });
  }
  return [...differences.values()];
}

export interface DocumentedException {
  path: string;
  kind: Difference['kind'];
  reason: string;
}

/**
 * The table of docs/COMPATIBILITY.md, "Deliberate differences from the recorded responses":
 * rows `| \`path\` | not sent / other type / not covered | reason |`.
 */
export function parseExceptions(markdown: string): DocumentedException[] {
  const section = markdown.split(/^## /m).find((s) => s.startsWith('Deliberate differences from the recorded responses'));
  if (!section) throw new Error('COMPATIBILITY.md has no "Deliberate differences from the recorded responses" section');
  const rows: DocumentedException[] = [];
  for (const line of section.split('\n')) {
    const m = /^\|\s*`([^`]+)`\s*\|\s*(not sent|other type|not covered)\s*\|\s*(.+?)\s*\|\s*$/.exec(line);
    if (m) rows.push({ path: m[1]!, kind: m[2] as Difference['kind'], reason: m[3]! });
  }
  return rows;
}
