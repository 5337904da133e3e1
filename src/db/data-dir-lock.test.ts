import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDirInUseError, lockDataDir } from './data-dir-lock.js';

describe('data directory lock', () => {
  it('refuses a directory held by another live process', () => {
    const dir = mkdtempSync(join(tmpdir(), 'explorer-lock-'));
    writeFileSync(join(dir, 'explorer.lock'), String(process.ppid)); // our parent: alive, not us
    expect(() => lockDataDir(dir)).toThrow(DataDirInUseError);
    expect(() => lockDataDir(dir)).toThrow(new RegExp(`in use by process ${process.ppid}`));
  });

  it('takes over the lock of a process that is gone, and releases its own', () => {
    const dir = mkdtempSync(join(tmpdir(), 'explorer-lock-'));
    writeFileSync(join(dir, 'explorer.lock'), '4194300'); // above any pid in use here
    const release = lockDataDir(dir);
    expect(readFileSync(join(dir, 'explorer.lock'), 'utf8')).toBe(String(process.pid));
    release();
    expect(existsSync(join(dir, 'explorer.lock'))).toBe(false);
  });
});
