import { pidAlive, processStartTime, type ProcessIdentity } from './process-identity.js';

/** What a lock file says about its holder. */
export interface LockOwner extends ProcessIdentity {
  /** random, so two lock files never have the same content (the takeover relies on it) */
  nonce: string;
  since: string;
}

/** How old a holder's heartbeat may be before a lock from another pid namespace counts as left. */
export const HEARTBEAT_MS = 5_000;
export const FOREIGN_NAMESPACE_STALE_MS = 30_000;
/** An unreadable lock file younger than this may be one an older version is still writing. */
const UNREADABLE_GRACE_MS = 10_000;

export type Verdict = { held: true; why: string } | { held: false; why: string };

/** How to look at processes; the real /proc by default, replaced only in unit tests. */
export interface ProcessProbe {
  alive(pid: number): boolean;
  startTime(pid: number): string | null;
  now(): number;
}

export const realProbe: ProcessProbe = { alive: pidAlive, startTime: processStartTime, now: Date.now };

/**
 * The lock file's content: the JSON this version writes, or the bare pid older versions wrote
 * (no host recorded: it was written on this host, or it was taken over by mistake anyway).
 */
export function parseOwner(content: string, me: ProcessIdentity): LockOwner | null {
  const text = content.trim();
  if (/^\d+$/.test(text)) {
    return { pid: Number(text), host: me.host, bootId: null, pidNamespace: null, startTime: null, nonce: '', since: '' };
  }
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    if (typeof o.pid !== 'number' || typeof o.host !== 'string' || typeof o.nonce !== 'string') return null;
    return {
      pid: o.pid,
      host: o.host,
      bootId: o.bootId ?? null,
      pidNamespace: o.pidNamespace ?? null,
      startTime: o.startTime ?? null,
      nonce: o.nonce,
      since: o.since ?? '',
    };
  } catch {
    return null;
  }
}

export function describeOwner(owner: LockOwner): string {
  return `process ${owner.pid} on ${owner.host}${owner.since ? ` (since ${owner.since})` : ''}`;
}

/**
 * Whether the lock's holder may still be running. Only a holder proven gone is not held: a
 * lock from another host is never judged (its pids mean nothing here), a pid that is alive
 * counts unless /proc shows it now belongs to a process started later (pid reuse).
 */
export function judgeOwner(
  owner: LockOwner | null,
  file: { mtimeMs: number },
  me: ProcessIdentity,
  probe: ProcessProbe = realProbe,
): Verdict {
  const age = probe.now() - file.mtimeMs;
  if (owner === null) {
    return age < UNREADABLE_GRACE_MS
      ? { held: true, why: 'its lock file is being written' }
      : { held: false, why: 'unreadable lock file' };
  }
  const who = describeOwner(owner);
  if (owner.host !== me.host) return { held: true, why: `${who}, another host: remove the lock file by hand once it has stopped` };
  if (owner.bootId !== null && me.bootId !== null && owner.bootId !== me.bootId) {
    return { held: false, why: `${who} ran before this host last booted` };
  }
  if (owner.pidNamespace !== null && me.pidNamespace !== null && owner.pidNamespace !== me.pidNamespace) {
    // another container with this host name: its pid cannot be looked at from here, only the
    // lock file's heartbeat tells whether it still runs
    return age < FOREIGN_NAMESPACE_STALE_MS
      ? { held: true, why: `${who} in another pid namespace (a container?), alive ${Math.round(age / 1000)} s ago` }
      : { held: false, why: `${who} in another pid namespace stopped its heartbeat ${Math.round(age / 1000)} s ago` };
  }
  if (owner.pid === me.pid) {
    // a bare pid equal to ours was written by an older version, so not by this process
    if (owner.startTime === null && owner.nonce === '') return { held: false, why: `${who} (pid now reused by this process)` };
    if (owner.startTime === me.startTime) return { held: true, why: `${who}: this very process` };
    return { held: false, why: `${who} (pid now reused by this process)` };
  }
  if (!probe.alive(owner.pid)) return { held: false, why: `${who} is gone` };
  const started = probe.startTime(owner.pid);
  if (owner.startTime !== null && started !== null && started !== owner.startTime) {
    return { held: false, why: `${who} is gone (its pid now belongs to a later process)` };
  }
  return { held: true, why: who };
}
