import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/**
 * The sidecar `FILE.state.json`, rewritten (atomically, by rename) after every page is on
 * disk: what was exported, how many bytes and records the file held then, and where the next
 * page starts. `next_page_params: null` with `done` means the export finished.
 */
export interface ExportState<Params = unknown> {
  version: 1;
  kind: string;
  chain: string;
  target: string;
  format: string;
  /** holders at a past block (--block, or pinned), absent for today's list */
  block?: string;
  /** `block` is the server's indexed block when the export began (no --block given) */
  pinned?: true;
  /** holders of this ERC-1155 token id only */
  tokenId?: string;
  bytes: number;
  items: number;
  next_page_params: Params | null;
  done: boolean;
}

export const statePath = (out: string) => `${out}.state.json`;

export function readState<Params>(out: string): ExportState<Params> | null {
  let text: string;
  try {
    text = readFileSync(statePath(out), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const state = JSON.parse(text) as ExportState<Params>;
  if (state.version !== 1) throw new Error(`${statePath(out)}: unknown state version ${String(state.version)}`);
  return state;
}

export function writeState(out: string, state: ExportState): void {
  const path = statePath(out);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(state)}\n`);
  renameSync(`${path}.tmp`, path);
}
