import { readFile, stat } from 'node:fs/promises';
import type { Database } from '../db/client.js';
import type { Hex } from '../db/rows.js';
import { applyLabels, removeLabels } from '../db/queries/labels.js';
import type { Label } from './entry.js';
import { LabelFileError, parseLabels, type LabelFormat } from './parse.js';

/** A labels file larger than this is refused before it is read. */
export const MAX_LABEL_FILE_BYTES = 64 * 2 ** 20;

/** All of them or none: one transaction. */
export async function importLabels(db: Database, labels: readonly Label[]): Promise<void> {
  await db.transaction((tx) => applyLabels(tx, labels));
}

export async function removeLabelsOf(db: Database, targets: readonly { chainId: number; address: Hex }[]): Promise<number> {
  return db.transaction((tx) => removeLabels(tx, targets));
}

/** Reads and checks a whole file; LabelFileError (with its line) if any entry is bad. */
export async function readLabelsFile(path: string, format: LabelFormat): Promise<Label[]> {
  const size = (await stat(path)).size;
  if (size > MAX_LABEL_FILE_BYTES) throw new LabelFileError(1, `the file is larger than ${MAX_LABEL_FILE_BYTES / 2 ** 20} MiB`);
  return parseLabels(await readFile(path, 'utf8'), format);
}
