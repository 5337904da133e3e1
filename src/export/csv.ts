export type CsvValue = string | number | boolean | null;

/**
 * One CSV field (RFC 4180 quoting). Line breaks inside text become spaces: the export is one
 * record per line, which is what lets --resume find the last record by reading the last line.
 * JSONL keeps every character.
 */
export function csvField(value: CsvValue): string {
  if (value === null) return '';
  let text = String(value).replace(/[\r\n]+/g, ' ');
  // A spreadsheet runs a cell that starts with one of these as a formula, and a token's or a
  // label's name is anyone's to choose (`=HYPERLINK(…)`): such text is kept as text with a
  // leading apostrophe, as spreadsheets themselves write it. Numbers and hashes never start so.
  if (typeof value === 'string' && /^[=+\-@\t]/.test(text)) text = `'${text}`;
  return /[",]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvLine = (values: readonly CsvValue[]): string => values.map(csvField).join(',');

/**
 * The first `n` fields of a line whose leading fields are never quoted (hashes, numbers):
 * enough to find where a record sits in the list.
 */
export function leadingFields(line: string, n: number): string[] {
  return line.split(',', n);
}
