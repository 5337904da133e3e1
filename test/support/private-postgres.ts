/**
 * A PostgreSQL server of a test's own, for what the machine's shared server must never go
 * through: a crash of the server itself (`pg_ctl stop -m immediate`: every backend quits without
 * writing what it holds, and the next start recovers from the WAL, as after a power cut that
 * spared the OS's page cache). Made with the machine's PostgreSQL binaries (Debian's
 * `postgresql` package, the one its shared server runs from) in a temporary directory, on a free
 * port; run as the `postgres` user when the tests run as root, since PostgreSQL refuses root.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export interface PrivatePostgres {
  /** the `postgres` database, trust authentication */
  url: string;
  /** every backend ended at once, nothing flushed: the next start replays the WAL */
  crash(): void;
  start(): void;
  /** stopped and its directory removed */
  remove(): void;
}

const SERVERS = '/usr/lib/postgresql';

function binaries(): string {
  const versions = existsSync(SERVERS) ? readdirSync(SERVERS).filter((v) => existsSync(join(SERVERS, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest === undefined) throw new Error(`no PostgreSQL server binaries under ${SERVERS} (Debian's postgresql package)`);
  return join(SERVERS, newest, 'bin');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

export async function startPrivatePostgres(settings: Record<string, string> = {}): Promise<PrivatePostgres> {
  const bin = binaries();
  const root = userInfo().uid === 0;
  const run = (program: string, args: string[]) => {
    const [file, argv] = root ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]] : [join(bin, program), args];
    execFileSync(file, argv, { stdio: 'pipe', timeout: 120_000 });
  };
  const dir = mkdtempSync(join(tmpdir(), 'explorer-private-pg-'));
  if (root) chownSync(dir, userId('-u'), userId('-g'));
  const data = join(dir, 'data');
  const port = await freePort();
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const options = ['-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  const start = () => run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', options.join(' '), 'start']);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    crash: () => run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']),
    start,
    remove: () => {
      try {
        run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      } catch {
        // not running
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** the `postgres` user's id (`-u`) or group id (`-g`) */
const userId = (which: '-u' | '-g') => Number(execFileSync('id', [which, 'postgres']).toString().trim());
