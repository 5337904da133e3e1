import { spawn } from 'node:child_process';
import { explorerArgv, ROOT as REPO_ROOT } from './explorer-command.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The real `explorer` command (built, explorer-command.ts) as a child process, with only the
 * environment given here beside PATH, so the developer's own settings never leak in.
 */
export function runCli(args: readonly string[], options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, explorerArgv(args), {
      cwd: options.cwd ?? REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`explorer ${args.join(' ')} did not finish: ${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface CliProcess {
  child: ReturnType<typeof spawn>;
  /** what it wrote to stderr so far */
  stderr(): string;
  stop(): Promise<void>;
}

/** A long-running `explorer` command (index, serve, …) as a child process. */
export function startCli(args: readonly string[], options: { env?: Record<string, string>; cwd?: string } = {}): CliProcess {
  const child = spawn(process.execPath, explorerArgv(args), {
    cwd: options.cwd ?? REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return {
    child,
    stderr: () => stderr,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
