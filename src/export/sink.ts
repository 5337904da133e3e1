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

/** stdout stays open after the export: only its drain is awaited. */
export function stdoutSink(stream: Writable = process.stdout): LineSink {
  return {
    write: (chunk) => writeTo(stream, chunk),
    close: async () => undefined,
  };
}
