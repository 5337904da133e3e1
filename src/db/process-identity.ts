import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * What names a process beyond its pid, which the kernel reuses and which means nothing in
 * another container: the host, the kernel's boot, the pid namespace and the moment the process
 * started. Linux exposes the last three in /proc; elsewhere they are null and only the pid and
 * host are compared.
 */
export interface ProcessIdentity {
  pid: number;
  host: string;
  /** /proc/sys/kernel/random/boot_id: changes at every boot */
  bootId: string | null;
  /** /proc/self/ns/pid, e.g. "pid:[4026531836]": differs between containers on one kernel */
  pidNamespace: string | null;
  /** field 22 of /proc/<pid>/stat: clock ticks after boot, unique per pid among live processes */
  startTime: string | null;
}

const readOrNull = (read: () => string): string | null => {
  try {
    return read().trim();
  } catch {
    return null;
  }
};

/** /proc/<pid>/stat from field 3 (the state) on; null when gone or without /proc. */
function statFields(pid: number): string[] | null {
  const stat = readOrNull(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
  // the command name (field 2) is in parentheses and may itself hold spaces and parentheses
  return stat === null ? null : stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The start time of a live process in this pid namespace; null when gone or without /proc. */
export function processStartTime(pid: number): string | null {
  return statFields(pid)?.[19] ?? null; // field 22 counted from the state, which is field 3
}

/**
 * Whether a process with this pid runs in this pid namespace (ours or another user's). A zombie,
 * exited and not yet reaped by its parent, still answers kill(pid, 0) and keeps its start time,
 * but holds nothing: a restart right after a kill -9, under a parent that reaps late, was refused
 * for ~2 s (outside review, 2026-11-27).
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = statFields(pid)?.[0]; // e.g. "R", "S"; "Z" a zombie, "X" dead
  return state !== 'Z' && state !== 'X';
}

export function currentProcess(): ProcessIdentity {
  return {
    pid: process.pid,
    host: hostname(),
    bootId: readOrNull(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8')),
    pidNamespace: readOrNull(() => readlinkSync('/proc/self/ns/pid')),
    startTime: processStartTime(process.pid),
  };
}
