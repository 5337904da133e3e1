import type { Writable } from 'node:stream';
import type { Page } from '../sdk/types.js';
import { formatLine, type ExportKind } from './kinds.js';
import { createProgress } from './progress.js';
import { resumePoint, type ExportIdentity, type StartPoint } from './resume.js';
import { fileSink, stdoutSink } from './sink.js';
import { statePath, writeState } from './state.js';
import { rmSync } from 'node:fs';

export interface ExportOptions<Item, Params> {
  kind: ExportKind<Item, Params>;
  identity: ExportIdentity;
  /** pages from `after` on (the SDK's page iterator) */
  pages: (after: Params | undefined, signal: AbortSignal | undefined) => AsyncIterable<Page<Item, Params>>;
  /** a file, or null for stdout */
  out: string | null;
  resume: boolean;
  itemsCount: number;
  key: string | undefined;
  /** for the progress bar; null when unknown */
  total: number | null;
  signal?: AbortSignal;
  /** where the progress bar goes (a bar only on a TTY) */
  progressStream?: NodeJS.WriteStream;
  stdout?: Writable;
  /** after each page is on disk and recorded */
  onPage?: (progress: { items: number; pages: number }) => void;
}

export interface ExportResult {
  /** records in the output, earlier runs included */
  items: number;
  /** pages fetched by this run */
  pages: number;
  complete: boolean;
  /** records that were already there when this run started */
  resumedFrom: number;
}

const freshStart = (writeHeader: boolean): StartPoint<never> => ({
  append: false, writeHeader, after: undefined, items: 0, bytes: 0, done: false,
});

/**
 * Streams every page into the output, one page in memory at a time: a page is fetched only
 * once the previous one is written, and after each page the state file records the position
 * (so an interrupted export can continue with --resume).
 */
export async function runExport<Item, Params>(options: ExportOptions<Item, Params>): Promise<ExportResult> {
  const { kind, identity, out, signal } = options;
  const header = identity.format === 'csv' ? kind.csvHeader : null;
  const start: StartPoint<Params> =
    out !== null && options.resume
      ? await resumePoint({ out, kind: kind as ExportKind<unknown, Params>, identity, itemsCount: options.itemsCount, key: options.key })
      : freshStart(header !== null);
  if (start.done) return { items: start.items, pages: 0, complete: true, resumedFrom: start.items };

  let { bytes, items } = start;
  let pages = 0;
  const record = (next: Params | null, done: boolean) => {
    if (out !== null) writeState(out, { version: 1, ...identity, bytes, items, next_page_params: next, done });
  };
  const sink = out === null ? stdoutSink(options.stdout) : fileSink(out, start.append);
  const write = async (chunk: string) => {
    await sink.write(chunk);
    bytes += Buffer.byteLength(chunk);
  };
  // records printed to a terminal would be garbled by a bar on the same screen
  const stdoutIsTerminal = out === null && (options.stdout ?? process.stdout) === process.stdout && process.stdout.isTTY;
  const progress = createProgress({
    enabled: !stdoutIsTerminal,
    stream: options.progressStream ?? process.stderr,
    noun: kind.noun,
    total: options.total,
    start: start.items,
  });
  const result = (complete: boolean): ExportResult => ({ items, pages, complete, resumedFrom: start.items });
  let failedFresh = false;
  try {
    if (start.writeHeader && header !== null) await write(`${header}\n`);
    record(start.after ?? null, false);
    for await (const page of options.pages(start.after, signal)) {
      const chunk = page.items.map((item) => `${formatLine(kind, identity.format, item)}\n`).join('');
      if (chunk !== '') await write(chunk);
      items += page.items.length;
      pages++;
      record(page.next_page_params, page.next_page_params === null);
      progress.update(items);
      options.onPage?.({ items, pages });
      if (signal?.aborted) return result(false);
    }
    return result(true);
  } catch (error) {
    if (signal?.aborted) return result(false);
    // a new export refused from its first page (no such token then, a block above the index)
    // leaves no file: a header alone would read as a list of nobody
    failedFresh = out !== null && !start.append && pages === 0;
    throw error;
  } finally {
    progress.stop();
    await sink.close();
    if (failedFresh) for (const file of [out!, statePath(out!)]) rmSync(file, { force: true });
  }
}
