import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PGlite has no lock of its own, and two processes on one data directory corrupt it (say,
 * `explorer keys create` next to a running `explorer start`). The first process takes
 * `explorer.lock`; a second one is refused with a clear message. A lock left by a killed
 * process (its pid is gone) is taken over.
 */
export function lockDataDir(dir: string): () => void {
  const file = join(dir, 'explorer.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(file, 'utf8') === String(process.pid)) unlinkSync(file);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(file, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new DataDirInUseError(
          `the data directory ${dir} is in use by process ${owner}; stop it first, or use PostgreSQL (DATABASE_URL) to run several processes`,
        );
      }
      unlinkSync(file); // stale: its process is gone
    }
  }
  throw new DataDirInUseError(`could not lock the data directory ${dir}`);
}
