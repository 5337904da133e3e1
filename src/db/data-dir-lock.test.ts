import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDirInUseError, lockDataDir } from './data-dir-lock.js';
import { FOREIGN_NAMESPACE_STALE_MS, judgeOwner, parseOwner, type LockOwner, type ProcessProbe } from './lock-owner.js';
import { currentProcess, processStartTime, type ProcessIdentity } from './process-identity.js';

const fresh = () => mkdtempSync(join(tmpdir(), 'explorer-lock-'));
const me: ProcessIdentity = { pid: 100, host: 'here', bootId: 'boot-1', pidNamespace: 'pid:[1]', startTime: '5000' };
const owner = (fields: Partial<LockOwner>): LockOwner => ({ ...me, pid: 200, startTime: '4000', nonce: 'n', since: 's', ...fields });
/** a host where pid 200 runs, started at tick 4000 */
const probe: ProcessProbe = { alive: (pid) => pid === 200, startTime: (pid) => (pid === 200 ? '4000' : null), now: () => 1_000_000 };
const file = { mtimeMs: 1_000_000 };

describe('data directory lock: who holds it', () => {
  it('a live holder on this host holds it', () => {
    expect(judgeOwner(owner({}), file, me, probe).held).toBe(true);
  });

  it('a dead pid, or a pid now belonging to a later process, does not', () => {
    expect(judgeOwner(owner({ pid: 300 }), file, me, probe)).toMatchObject({ held: false, why: expect.stringMatching(/is gone/) });
    expect(judgeOwner(owner({ startTime: '3999' }), file, me, probe)).toMatchObject({ held: false, why: expect.stringMatching(/later process/) });
  });

  it('a holder on another host always holds it, even with a pid that is dead here', () => {
    expect(judgeOwner(owner({ host: 'there', pid: 300 }), { mtimeMs: 0 }, me, probe)).toMatchObject({ held: true, why: expect.stringMatching(/another host/) });
  });

  it('a holder from before the last boot does not', () => {
    expect(judgeOwner(owner({ bootId: 'boot-0' }), file, me, probe).held).toBe(false);
  });

  it('our own pid: held if it is this very process, else a reused pid', () => {
    expect(judgeOwner(owner({ pid: 100, startTime: '5000' }), file, me, probe)).toMatchObject({ held: true, why: expect.stringMatching(/this very process/) });
    expect(judgeOwner(owner({ pid: 100, startTime: '10' }), file, me, probe).held).toBe(false);
    expect(judgeOwner(parseOwner('100', me), file, me, probe).held).toBe(false);
  });

  it('another pid namespace on this host (a container): held while its heartbeat is fresh', () => {
    const other = owner({ pidNamespace: 'pid:[2]', pid: 1 });
    expect(judgeOwner(other, { mtimeMs: 1_000_000 - 1_000 }, me, probe).held).toBe(true);
    expect(judgeOwner(other, { mtimeMs: 1_000_000 - FOREIGN_NAMESPACE_STALE_MS - 1 }, me, probe).held).toBe(false);
  });

  it('an unreadable lock file: being written while young, left over when old', () => {
    expect(parseOwner('', me)).toBeNull();
    expect(judgeOwner(null, { mtimeMs: 1_000_000 - 100 }, me, probe).held).toBe(true);
    expect(judgeOwner(null, { mtimeMs: 0 }, me, probe).held).toBe(false);
  });

  it('reads start times from /proc', () => {
    if (!existsSync('/proc/self/stat')) return;
    expect(processStartTime(process.pid)).toMatch(/^\d+$/);
    expect(processStartTime(4_194_300)).toBeNull();
  });
});

describe('data directory lock: on disk', () => {
  it('refuses a directory held by another live process', async () => {
    const dir = fresh();
    const parent = { ...currentProcess(), pid: process.ppid, startTime: processStartTime(process.ppid), nonce: 'x', since: 'then' };
    writeFileSync(join(dir, 'explorer.lock'), JSON.stringify(parent));
    await expect(lockDataDir(dir)).rejects.toThrow(DataDirInUseError);
    await expect(lockDataDir(dir)).rejects.toThrow(new RegExp(`in use by process ${process.ppid} on `));
  });

  it('takes over the lock of a zombie (exited, its parent not reaping it yet): a restart right after a kill -9', async () => {
    if (!existsSync('/proc/self/stat')) return;
    // a short `sleep` runs in the background and exits once its parent has become `sleep 30`,
    // which never reaps it (a child exiting at once could be reaped by the shell before its
    // exec: a CI run under load saw it gone, not a zombie)
    const parent = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = Number((await once(parent.stdout!, 'data'))[0].toString().trim());
      const state = () => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[0];
      for (let i = 0; i < 100 && state() !== 'Z'; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(state()).toBe('Z');
      expect(processStartTime(pid)).toMatch(/^\d+$/); // kill(pid, 0) and the start time still answer for it
      const dir = fresh();
      writeFileSync(join(dir, 'explorer.lock'), JSON.stringify({ ...currentProcess(), pid, startTime: processStartTime(pid), nonce: 'z', since: 'then' }));
      const release = await lockDataDir(dir);
      expect(JSON.parse(readFileSync(join(dir, 'explorer.lock'), 'utf8')).pid).toBe(process.pid);
      release();
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('refuses a second lock by this same process', async () => {
    const dir = fresh();
    const release = await lockDataDir(dir);
    await expect(lockDataDir(dir)).rejects.toThrow(/this very process/);
    release();
  });

  it('takes over the lock of a process that is gone, and releases its own', async () => {
    const dir = fresh();
    writeFileSync(join(dir, 'explorer.lock'), '4194300'); // an older version's lock; above any pid in use here
    const release = await lockDataDir(dir);
    const held = JSON.parse(readFileSync(join(dir, 'explorer.lock'), 'utf8')) as LockOwner;
    expect(held).toMatchObject({ pid: process.pid, host: currentProcess().host, startTime: processStartTime(process.pid) });
    release();
    expect(existsSync(join(dir, 'explorer.lock'))).toBe(false);
  });

  it('removes the temporary files of processes killed while locking, not those of live ones', async () => {
    const dir = fresh();
    writeFileSync(join(dir, 'explorer.lock.4194300.ab12.tmp'), '{}');
    writeFileSync(join(dir, `explorer.lock.${process.ppid}.cd34.tmp`), '{}');
    const release = await lockDataDir(dir);
    release();
    expect(readdirSync(dir)).toEqual([`explorer.lock.${process.ppid}.cd34.tmp`]);
  });
});
