import { readFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import pg from 'pg';

/** Linux reports process times in clock ticks of 1/100 s (USER_HZ) on every mainstream build. */
const TICK_MS = 10;

export async function procCpuMs(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // fields after the parenthesised command name: utime and stime are the 12th and 13th
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0; // gone, or not Linux
  }
}

/** The child of `pid` running `command` (anvil under its supervising shell); `pid` itself if none. */
export async function childPid(pid: number, command: string): Promise<number> {
  try {
    const children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8')).trim().split(/\s+/).filter(Boolean);
    for (const child of children) {
      if ((await readFile(`/proc/${child}/comm`, 'utf8')).trim() === command) return Number(child);
    }
  } catch {
    // not Linux, or gone
  }
  return pid;
}

/**
 * CPU time used by a Node process (this one, or the server `measure` is given the pid of) and
 * by the PostgreSQL backends serving one database, so a
 * throughput figure can be split into what each side costs on a 2-core machine. Backends are
 * sampled every `everyMs`: one the pool opens midway counts from zero, one it closes keeps
 * what it had used at the last sample.
 */
export async function cpuMeter(databaseUrl: string, everyMs = 250) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const sampleBackends = async (into: Map<number, number>) => {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    for (const { pid } of rows) into.set(pid, await procCpuMs(pid));
  };
  return {
    async measure<T>(work: () => Promise<T>, nodePid = process.pid): Promise<{ result: T; nodeMs: number; postgresMs: number }> {
      const first = new Map<number, number>();
      const last = new Map<number, number>();
      await sampleBackends(first);
      const own = nodePid === process.pid;
      const nodeBefore = own ? 0 : await procCpuMs(nodePid);
      const cpu = process.cpuUsage();
      let sampling = Promise.resolve();
      const timer = setInterval(() => {
        sampling = sampling.then(() => sampleBackends(last)).catch(() => undefined);
      }, everyMs);
      try {
        const result = await work();
        const { user, system } = process.cpuUsage(cpu);
        const nodeMs = own ? (user + system) / 1000 : (await procCpuMs(nodePid)) - nodeBefore;
        clearInterval(timer);
        await sampling;
        await sampleBackends(last);
        let postgresMs = 0;
        for (const [pid, ms] of last) postgresMs += ms - (first.get(pid) ?? 0);
        return { result, nodeMs, postgresMs };
      } finally {
        clearInterval(timer);
      }
    },
    close: () => client.end(),
  };
}

/** A CPU profile of this process's main thread around `work` only (not the loading before it). */
export async function profiled<T>(work: () => Promise<T>): Promise<{ result: T; profile: object }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    const result = await work();
    const { profile } = await session.post('Profiler.stop');
    return { result, profile };
  } finally {
    session.disconnect();
  }
}
