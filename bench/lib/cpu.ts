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

/**
 * CPU time used by this process and by the PostgreSQL backends serving one database, so a
 * throughput figure can be split into what each side costs per request on a 2-core machine.
 */
export async function cpuMeter(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const backends = async () =>
    (await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')).rows.map((r) => r.pid);
  const snapshot = async () => {
    const pids = await backends();
    const pgMs = (await Promise.all(pids.map(procCpuMs))).reduce((a, b) => a + b, 0);
    const { user, system } = process.cpuUsage();
    return { pids: new Set(pids), pgMs, nodeMs: (user + system) / 1000 };
  };
  return {
    async measure<T>(work: () => Promise<T>): Promise<{ result: T; nodeMs: number; postgresMs: number }> {
      const before = await snapshot();
      const result = await work();
      const after = await snapshot();
      // a backend the pool opened during the work started from zero
      let pgMs = after.pgMs - before.pgMs;
      for (const pid of before.pids) if (!after.pids.has(pid)) pgMs = Number.NaN;
      return { result, nodeMs: after.nodeMs - before.nodeMs, postgresMs: pgMs };
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
