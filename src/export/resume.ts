import { existsSync } from 'node:fs';
import type { ExportFormat, ExportKind } from './kinds.js';
import { readState, statePath } from './state.js';
import { countLines, trimToLastLine } from './tail.js';

/** What this export is, recorded in the state file so a resume cannot continue another one. */
export interface ExportIdentity {
  kind: string;
  chain: string;
  target: string;
  format: ExportFormat;
  /** the past block of a holders export (--block, or `pinned`); absent for today's list */
  block?: string;
  /** the block is the server's indexed block when the export began, not one asked for */
  pinned?: true;
  /** holders of this ERC-1155 token id only (--token-id) */
  tokenId?: string;
}

export interface StartPoint<Params> {
  /** append to the existing file rather than replace it */
  append: boolean;
  writeHeader: boolean;
  /** where the first request starts; undefined: at the beginning */
  after: Params | undefined;
  /** records already in the file, and its size */
  items: number;
  bytes: number;
  /** an earlier run finished: nothing to fetch */
  done: boolean;
}

/**
 * Where a `--resume` run picks up. An unfinished last line is cut off first. When the state
 * file describes the file exactly, its `next_page_params` are used as the server gave them;
 * otherwise (the run died between writing a page and recording it) the position is rebuilt
 * from the last record: keyset paging continues strictly after any record.
 */
export async function resumePoint<Params>(options: {
  out: string;
  kind: ExportKind<unknown, Params>;
  identity: ExportIdentity;
  itemsCount: number;
  key: string | undefined;
}): Promise<StartPoint<Params>> {
  const { out, kind, identity } = options;
  const header = identity.format === 'csv' ? kind.csvHeader : null;
  if (!existsSync(out)) return { append: false, writeHeader: header !== null, after: undefined, items: 0, bytes: 0, done: false };

  const state = readState<Params>(out);
  if (state) {
    const recorded = {
      kind: state.kind,
      chain: state.chain,
      target: state.target.toLowerCase(),
      format: state.format,
      ...(state.block !== undefined ? { block: state.block } : {}),
      ...(state.pinned ? { pinned: state.pinned } : {}),
      ...(state.tokenId !== undefined ? { tokenId: state.tokenId } : {}),
    };
    const wanted = { ...identity, target: identity.target.toLowerCase() };
    if (JSON.stringify(recorded) !== JSON.stringify(wanted)) {
      throw new Error(`${statePath(out)} belongs to another export (${JSON.stringify(recorded)}); use another --out or drop --resume`);
    }
  }
  const { lastLine, size } = trimToLastLine(out);
  if (lastLine === null || lastLine === header) {
    return { append: true, writeHeader: lastLine === null && header !== null, after: undefined, items: 0, bytes: size, done: false };
  }
  if (state && state.bytes === size) {
    // this run's --page-size, not the one the position was handed out with
    const after = state.next_page_params === null ? undefined : ({ ...state.next_page_params, items_count: options.itemsCount } as Params);
    return { append: true, writeHeader: false, after, items: state.items, bytes: size, done: state.done };
  }
  const after = kind.positionAfter(lastLine, identity.format, {
    itemsCount: options.itemsCount,
    key: options.key,
    previous: state?.next_page_params ?? null,
  });
  const items =
    state && state.bytes < size ? state.items + (await countLines(out, state.bytes)) : (await countLines(out)) - (header ? 1 : 0);
  return { append: true, writeHeader: false, after, items, bytes: size, done: false };
}
