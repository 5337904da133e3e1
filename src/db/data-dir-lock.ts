import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync, fstatSync, futimesSync, linkSync, openSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync, writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { currentProcess, pidAlive } from './process-identity.js';
import { HEARTBEAT_MS, judgeOwner, parseOwner, type LockOwner } from './lock-owner.js';

export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
}

const LOCK_FILE = 'explorer.lock';
/** A takeover claim left by a process killed in the middle of one (microseconds wide). */
const ABANDONED_CLAIM_MS = 30_000;
const ATTEMPTS = 100;

const code = (error: unknown) => (error as NodeJS.ErrnoException).code;

function ignoreMissing(fn: () => void): void {
  try {
    fn();
  } catch (error) {
    if (code(error) !== 'ENOENT') throw error;
  }
}

/** The lock file's content and status, or null when there is none. */
function readLock(file: string): { content: string; mtimeMs: number } | null {
  try {
    const fd = openSync(file, 'r');
    try {
      return { content: readFileSync(fd, 'utf8'), mtimeMs: fstatSync(fd).mtimeMs };
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (code(error) === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Removes the lock file if it still holds `content` (a holder judged gone). Contenders that all
 * judged it stale race for one claim: a hard link named after that content, which only one can
 * create. The winner checks through its link that it claimed that very file (not a fresh lock
 * that replaced it meanwhile) before unlinking it; nobody else unlinks a lock with this content,
 * so it is still the file the check read.
 */
function removeStaleLock(file: string, content: string): void {
  const claim = `${file}.claim-${createHash('sha256').update(content).digest('hex').slice(0, 16)}`;
  try {
    linkSync(file, claim);
  } catch (error) {
    if (code(error) === 'ENOENT') return; // the lock is gone already
    if (code(error) !== 'EEXIST') throw error;
    // another contender is removing it; a claim whose link is old was left by a killed one
    const claimed = statSync(claim, { throwIfNoEntry: false });
    if (claimed && Date.now() - claimed.ctimeMs > ABANDONED_CLAIM_MS) ignoreMissing(() => unlinkSync(claim));
    return;
  }
  try {
    if (readFileSync(claim, 'utf8') === content) unlinkSync(file);
  } finally {
    ignoreMissing(() => unlinkSync(claim));
  }
}

/**
 * Creates the lock file with its whole content at once: written under a temporary name, then
 * hard-linked to the lock's name, which fails if that exists. Nobody ever sees it half written.
 * Filesystems without hard links get an exclusive create and a write instead.
 */
function createLock(file: string, temp: string, content: string): boolean {
  try {
    linkSync(temp, file);
    return true;
  } catch (error) {
    if (code(error) === 'EEXIST') return false;
    if (code(error) !== 'EPERM' && code(error) !== 'ENOTSUP' && code(error) !== 'ENOSYS') throw error;
  }
  let fd: number;
  try {
    fd = openSync(file, 'wx');
  } catch (error) {
    if (code(error) === 'EEXIST') return false;
    throw error;
  }
  writeSync(fd, content);
  closeSync(fd);
  return true;
}

/** Temporary files of processes killed while taking the lock; a live contender's stay. */
function removeLeftovers(dir: string): void {
  for (const name of readdirSync(dir)) {
    const pid = /^explorer\.lock\.(\d+)\.[0-9a-f]+\.tmp$/.exec(name)?.[1];
    if (pid !== undefined && !pidAlive(Number(pid))) ignoreMissing(() => unlinkSync(join(dir, name)));
  }
}

/** Keeps the lock: a heartbeat on its own inode, and a release that removes only its own file. */
function hold(file: string, content: string): () => void {
  const fd = openSync(file, 'r');
  const { ino } = fstatSync(fd);
  const beat = setInterval(() => {
    const now = new Date();
    try {
      futimesSync(fd, now, now);
    } catch {
      // the heartbeat only matters to a container judging us; the lock stays ours
    }
  }, HEARTBEAT_MS);
  beat.unref();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    clearInterval(beat);
    try {
      const now = statSync(file, { throwIfNoEntry: false });
      if (now?.ino === ino && readFileSync(file, 'utf8') === content) unlinkSync(file);
    } catch {
      // already gone
    } finally {
      closeSync(fd);
    }
  };
}

/**
 * PGlite has no lock of its own, and two processes on one data directory corrupt it (say,
 * `explorer keys create` next to a running `explorer start`). The first process takes
 * `explorer.lock`, holding its pid, host, boot, pid namespace and start time; a second one is
 * refused with a clear message. A lock whose holder is proven gone (dead pid, a pid reused by a
 * later process, a boot ago, a container whose heartbeat stopped) is taken over; one from
 * another host never is.
 */
export async function lockDataDir(dir: string): Promise<() => void> {
  const file = join(dir, LOCK_FILE);
  const me = currentProcess();
  const owner: LockOwner = { ...me, nonce: randomBytes(12).toString('hex'), since: new Date().toISOString() };
  const content = `${JSON.stringify(owner)}\n`;
  const temp = `${file}.${me.pid}.${owner.nonce}.tmp`;
  try {
    writeFileSync(temp, content, { flag: 'wx' });
  } catch (error) {
    // created but not written (a full disk): nothing of ours stays behind, and the message says where
    ignoreMissing(() => unlinkSync(temp));
    throw new Error(`cannot write in the data directory ${dir}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  try {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (createLock(file, temp, content)) {
        removeLeftovers(dir);
        return hold(file, content);
      }
      const current = readLock(file);
      if (current === null) continue;
      const verdict = judgeOwner(parseOwner(current.content, me), current, me);
      if (verdict.held) {
        throw new DataDirInUseError(
          `the data directory ${dir} is in use by ${verdict.why}; stop it first, or use PostgreSQL (DATABASE_URL) to run several processes`,
        );
      }
      removeStaleLock(file, current.content);
      // let a contender that won the claim finish its takeover
      if (attempt > 0) await sleep(Math.min(attempt, 20));
    }
  } finally {
    ignoreMissing(() => unlinkSync(temp));
  }
  throw new DataDirInUseError(`could not lock the data directory ${dir}: other processes keep taking it`);
}
