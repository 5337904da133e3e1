import { open, rename } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import type { Hex } from 'viem';

/**
 * Keeps the demo chain's state in a file that is always whole: the node's dump (`anvil_dumpState`,
 * what `--load-state` reads back) written to a file beside it, flushed, then renamed over it.
 * anvil's own `--state-interval` rewrote the file in place, and a soak review found it cut off
 * mid-write in 2 of 29 samples; after a `kill -9` the next start failed on the broken JSON and
 * the chain was lost. The state grows with the chain (about 1 MB a minute of the demo's traffic),
 * so a save is taken at most every `intervalMs`, and never more often than twenty times its own
 * last duration: the saves stay a twentieth of the time however large the state gets.
 */
export interface StateSaver {
  /** A last save (the chain as it stops), then no more. */
  stop(): Promise<void>;
}

export interface StateSaverOptions {
  intervalMs?: number;
  /** a save that failed (the previous file stays as it was) */
  onError?: (error: unknown) => void;
}

const GZIP_MAGIC = [0x1f, 0x8b];

/** The node's state as JSON: anvil gzips its dump. */
function stateJson(dump: Hex): Buffer {
  const bytes = Buffer.from(dump.slice(2), 'hex');
  return bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1] ? gunzipSync(bytes) : bytes;
}

/** Writes `data` to `file` whole or not at all: a sibling file, flushed, renamed over it. */
export async function writeWhole(file: string, data: Buffer): Promise<void> {
  const partial = `${file}.partial`;
  const handle = await open(partial, 'w');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(partial, file);
}

export function keepStateSaved(dumpState: () => Promise<Hex>, file: string, options: StateSaverOptions = {}): StateSaver {
  const intervalMs = options.intervalMs ?? 5_000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let saving: Promise<void> = Promise.resolve();

  const save = async (): Promise<number> => {
    const started = Date.now();
    await writeWhole(file, stateJson(await dumpState()));
    return Date.now() - started;
  };
  const schedule = (lastMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      saving = save().then(schedule, (error: unknown) => {
        options.onError?.(error);
        schedule(0);
      });
    }, Math.max(intervalMs, 20 * lastMs));
    timer.unref();
  };
  schedule(0);

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await saving;
      await save();
    },
  };
}
