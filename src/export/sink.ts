import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';

/** Where export lines go: a file (appended to on resume) or stdout. */
export interface LineSink {
  /**
   * Resolves once the chunk has been handed to the OS, so the caller can record it as written;
   * waiting here is also the backpressure: the next page is fetched only after that.
   */
  write(chunk: string): Promise<void>;
  close(): Promise<void>;
}

function writeTo(stream: Writable, chunk: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(chunk, (error) => (error ? reject(error) : resolve()));
  });
}

export function fileSink(path: string, append: boolean): LineSink {
  const stream = createWriteStream(path, { flags: append ? 'a' : 'w' });
  const failed = new Promise<never>((_, reject) => stream.once('error', reject));
  failed.catch(() => undefined);
  return {
    write: (chunk) => Promise.race([writeTo(stream, chunk), failed]),
    close: async () => {
      stream.end();
      await finished(stream);
    },
  };
}

/** What a write into a pipe whose reader has gone (`explorer export … | head`) fails with. */
export const isReaderGone = (error: unknown): boolean => (error as NodeJS.ErrnoException | null)?.code === 'EPIPE';

/**
 * stdout stays open after the export: only its drain is awaited. A reader that went away fails
 * the next write with EPIPE, an error event that unheard would crash the process: it is heard
 * here and ends the export (isReaderGone).
 */
export function stdoutSink(stream: Writable = process.stdout): LineSink {
  let fail!: (error: Error) => void;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => undefined);
  // every error heard, not only the first: a second write in flight fails the same way
  stream.on('error', (error) => fail(error));
  return {
    write: (chunk) => Promise.race([writeTo(stream, chunk), failed]),
    close: async () => undefined,
  };
}
