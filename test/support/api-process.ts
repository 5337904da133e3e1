import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { REPO_ROOT } from './contracts.js';
import { explorerArgv } from './explorer-command.js';

export interface ApiProcess {
  url: string;
  child: ChildProcess;
  /** everything the process wrote to stdout (its JSON log) and stderr; empty unless `captureOutput` */
  output(): string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** `explorer serve` as a real child process (the built CLI, explorer-command.ts), ready to answer. */
export async function startApiProcess(
  env: Record<string, string>,
  args: string[] = [],
  options: { captureOutput?: boolean } = {},
): Promise<ApiProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, explorerArgv(['serve', '--port', String(port), ...args]), {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', options.captureOutput ? 'pipe' : 'ignore', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`explorer serve exited ${child.exitCode}: ${stderr}`);
    try {
      // listening: /health answers (503 too: no chain may be indexed yet)
      await fetch(`${url}/health`);
      break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`explorer serve did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    child,
    output: () => stdout + stderr,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
