import { closeSync, createReadStream, fstatSync, ftruncateSync, openSync, readSync } from 'node:fs';

const CHUNK = 64 * 1024;

/** Offset of the last newline before `end`, or -1; reads backwards, so cost does not grow with the file. */
function lastNewlineBefore(fd: number, end: number): number {
  for (let pos = end; pos > 0; ) {
    const start = Math.max(0, pos - CHUNK);
    const chunk = Buffer.alloc(pos - start);
    readSync(fd, chunk, 0, chunk.length, start);
    const at = chunk.lastIndexOf(0x0a);
    if (at >= 0) return start + at;
    pos = start;
  }
  return -1;
}

/**
 * Cuts an unfinished last line off the file (a write interrupted mid-record) and returns the
 * last complete line (null when there is none) with the file's new size.
 */
export function trimToLastLine(path: string): { lastLine: string | null; size: number } {
  const fd = openSync(path, 'r+');
  try {
    const size = fstatSync(fd).size;
    const newline = lastNewlineBefore(fd, size);
    const complete = newline + 1;
    if (complete < size) ftruncateSync(fd, complete);
    if (newline < 0) return { lastLine: null, size: 0 };
    const lineStart = lastNewlineBefore(fd, newline) + 1;
    const line = Buffer.alloc(newline - lineStart);
    readSync(fd, line, 0, line.length, lineStart);
    return { lastLine: line.toString('utf8'), size: complete };
  } finally {
    closeSync(fd);
  }
}

/** Newlines from `from` to the end: the records written since a known point. */
export async function countLines(path: string, from = 0): Promise<number> {
  let lines = 0;
  for await (const chunk of createReadStream(path, { start: from })) {
    const buffer = chunk as Buffer;
    for (let i = buffer.indexOf(0x0a); i >= 0; i = buffer.indexOf(0x0a, i + 1)) lines++;
  }
  return lines;
}
