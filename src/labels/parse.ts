import { parse as parseCsv } from 'csv-parse/sync';
import { LABEL_LIMITS, labelProblem, toLabel, type Label, type LabelEntry } from './entry.js';

export type LabelFormat = 'json' | 'csv';

/** A file that is not applied at all: `line` is where its first problem is (1-based). */
export class LabelFileError extends Error {
  override name = 'LabelFileError';
  constructor(
    readonly line: number,
    readonly problem: string,
  ) {
    super(`line ${line}: ${problem}`);
  }
}

/** The CSV header's columns; `chain_id` and `address` are required, the others optional. */
export const CSV_COLUMNS = ['chain_id', 'address', 'name', 'is_scam', 'public_tags', 'metadata_tags'] as const;

/** `.csv` is CSV, anything else JSON. */
export function formatOf(path: string): LabelFormat {
  return /\.csv$/i.test(path) ? 'csv' : 'json';
}

/**
 * A whole labels file → labels, or LabelFileError at the first bad entry: nothing of a file
 * with a bad entry is applied. An address listed twice for one chain is an error too (which of
 * the two would win is not something to guess).
 */
export function parseLabels(text: string, format: LabelFormat): Label[] {
  const entries = format === 'csv' ? csvEntries(text) : jsonEntries(text);
  if (entries.length > LABEL_LIMITS.entries) {
    throw new LabelFileError(entries[LABEL_LIMITS.entries]!.line, `more than ${LABEL_LIMITS.entries} entries in one file`);
  }
  const seen = new Map<string, number>();
  return entries.map(({ line, value }) => {
    const why = labelProblem(value);
    if (why !== null) throw new LabelFileError(line, why);
    const label = toLabel(value as LabelEntry);
    const id = `${label.chainId}:${label.address}`;
    const first = seen.get(id);
    if (first !== undefined) throw new LabelFileError(line, `${label.address} on chain ${label.chainId} is already labelled on line ${first}`);
    seen.set(id, line);
    return label;
  });
}

interface Located {
  line: number;
  value: unknown;
}

const lineAt = (text: string, offset: number) => {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
};

/**
 * The spans of a JSON array's elements, from its text alone (strings and nesting followed), so
 * each entry has the line it starts on. Returns null when the text is not an array.
 */
function arrayElementSpans(text: string): Array<[number, number]> | null {
  let i = 0;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  if (text[i] !== '[') return null;
  const spans: Array<[number, number]> = [];
  let depth = 0;
  let inString = false;
  let start = -1;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    if (c === '[' || c === '{') {
      depth++;
      if (depth === 1) continue;
    } else if (c === ']' || c === '}') {
      depth--;
      if (depth === 0) {
        if (start >= 0) spans.push([start, i]);
        return spans;
      }
    }
    if (depth === 1 && c === ',') {
      if (start >= 0) spans.push([start, i]);
      start = -1;
    } else if (depth >= 1 && start < 0 && !/\s/.test(c)) {
      start = i;
    }
  }
  if (start >= 0) spans.push([start, text.length]);
  return spans;
}

function jsonEntries(text: string): Located[] {
  const spans = arrayElementSpans(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // the first element that does not parse on its own is where the file is broken
    for (const [start, end] of spans ?? []) {
      try {
        JSON.parse(text.slice(start, end));
      } catch (inner) {
        throw new LabelFileError(lineAt(text, start), `not valid JSON: ${(inner as Error).message.split('\n')[0]}`);
      }
    }
    throw new LabelFileError(1, `not valid JSON: ${(error as Error).message.split('\n')[0]}`);
  }
  if (!Array.isArray(parsed) || spans === null || spans.length !== parsed.length) {
    throw new LabelFileError(1, 'expected a JSON array of label entries');
  }
  return parsed.map((value, i) => ({ line: lineAt(text, spans[i]![0]), value }));
}

function csvEntries(text: string): Located[] {
  let rows: Array<{ record: Record<string, string>; raw: string; info: { lines: number } }>;
  let header: string[] = [];
  try {
    rows = parseCsv(text, {
      columns: (names: string[]) => {
        header = names.map((n) => n.trim());
        return header;
      },
      info: true,
      raw: true,
      skip_empty_lines: true,
      bom: true,
    });
  } catch (error) {
    const e = error as Error & { lines?: number };
    throw new LabelFileError(e.lines ?? 1, `not valid CSV: ${e.message}`);
  }
  const unknown = header.find((h) => !(CSV_COLUMNS as readonly string[]).includes(h));
  if (unknown !== undefined) throw new LabelFileError(1, `unknown column "${unknown}" (columns: ${CSV_COLUMNS.join(', ')})`);
  for (const required of ['chain_id', 'address']) {
    if (!header.includes(required)) throw new LabelFileError(1, `the header has no ${required} column`);
  }
  return rows.map(({ record, raw, info }) => {
    // info.lines is the record's last line; a quoted cell may span several
    const line = info.lines - (raw.replace(/\r?\n$/, '').match(/\n/g)?.length ?? 0);
    try {
      return { line, value: csvRecordToEntry(record) };
    } catch (error) {
      throw new LabelFileError(line, (error as Error).message);
    }
  });
}

const BOOLEANS: Record<string, boolean> = { '': false, true: true, false: false, '1': true, '0': false, yes: true, no: false };

/** One CSV row → the JSON entry shape: tag cells hold JSON arrays, empty cells are absent. */
function csvRecordToEntry(record: Record<string, string>): unknown {
  const entry: Record<string, unknown> = {};
  const chainId = record.chain_id?.trim() ?? '';
  entry.chain_id = /^[0-9]{1,16}$/.test(chainId) ? Number(chainId) : chainId;
  entry.address = record.address?.trim();
  if (record.name !== undefined && record.name !== '') entry.name = record.name;
  if (record.is_scam !== undefined) {
    const flag = BOOLEANS[record.is_scam.trim().toLowerCase()];
    if (flag === undefined) throw new Error(`is_scam: expected true or false (got ${JSON.stringify(record.is_scam.slice(0, 32))})`);
    entry.is_scam = flag;
  }
  for (const column of ['public_tags', 'metadata_tags'] as const) {
    const cell = record[column]?.trim();
    if (!cell) continue;
    try {
      entry[column] = JSON.parse(cell);
    } catch {
      throw new Error(`${column}: expected a JSON array of tags`);
    }
  }
  return entry;
}
