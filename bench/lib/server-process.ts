import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ApiConfig } from '../../src/config/config.js';
import { bundleWorker } from './worker-bundle.js';

/** A server in a child process that printed `{ port, pid }` as its first line. */
export interface ServerProcess {
  base: string;
  pid: number;
  /** SIGTERM, then waits for the exit (a --cpu-prof profile is written by then) */
  stop(): Promise<void>;
}

/** Starts `node <args>` and waits for its `{ port, pid }` line; stderr is passed through. */
export async function spawnServer(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const line = await Promise.race([
    new Promise<string>((done) => createInterface({ input: child.stdout }).once('line', done)),
    exited.then(() => Promise.reject(new Error(`server exited before listening: node ${args.join(' ')}`))),
  ]);
  const { port, pid } = JSON.parse(line) as { port: number; pid: number };
  return {
    base: `http://127.0.0.1:${port}`,
    pid,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const here = dirname(fileURLToPath(import.meta.url));
let entry: Promise<string> | null = null;

/** The API server of this checkout as built code (lib/api-server.ts), on `databaseUrl`. */
export async function apiServerProcess(databaseUrl: string, api: ApiConfig, cpuProfDir?: string): Promise<ServerProcess> {
  entry ??= bundleWorker(resolve(here, '..'), 'lib/api-server.ts');
  const prof = cpuProfDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', cpuProfDir];
  return spawnServer([...prof, await entry, databaseUrl, JSON.stringify(api)]);
}
