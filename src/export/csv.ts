export type CsvValue = string | number | boolean | null;

/**
 * One CSV field (RFC 4180 quoting). Line breaks inside text become spaces: the export is one
 * record per line, which is what lets --resume find the last record by reading the last line.
 * JSONL keeps every character.
 */
export function csvField(value: CsvValue): string {
  if (value === null) return '';
  const text = String(value).replace(/[\r\n]+/g, ' ');
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
