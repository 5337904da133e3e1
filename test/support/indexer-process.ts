/** The real CLI indexer as a child process that can be killed at any moment, its JSON log lines read as they come. */
import { spawn, type ChildProcess } from 'node:child_process';
import { REPO_ROOT } from './contracts.js';
import { explorerArgv } from './explorer-command.js';

export interface LogLine {
  level?: number;
  msg?: string;
  [field: string]: unknown;
}

export interface IndexerProcess {
  child: ChildProcess;
  /** structured log lines so far (pino JSON on stdout) */
  logs: LogLine[];
  /** anything that was not a JSON log line (stderr, crash traces) */
  output(): string;
  /** the first log line, past or future, matching `match`; rejects if the process exits first */
  waitForLog(match: (line: LogLine) => boolean, timeoutMs: number): Promise<LogLine>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface SpawnIndexerOptions {
  chainId: number;
  rpcUrl: string;
  dataDir: string;
  /** PostgreSQL instead of a PGlite data dir */
  databaseUrl?: string | null;
  env?: Record<string, string>;
}

/** `explorer index`, exactly as an operator would run it (the build, explorer-command.ts). */
export function spawnIndexer(opts: SpawnIndexerOptions): IndexerProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', EXPLORER_POLL_MS: '200', ...opts.env };
  delete env.DATABASE_URL;
  if (opts.databaseUrl) env.DATABASE_URL = opts.databaseUrl;
  const child = spawn(
    process.execPath,
    explorerArgv(['index', '--chain', `${opts.chainId}=${opts.rpcUrl}`, '--data-dir', opts.dataDir]),
    { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const logs: LogLine[] = [];
  const other: string[] = [];
  const waiters = new Set<{ match: (l: LogLine) => boolean; resolve: (l: LogLine) => void }>();
  let partial = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const text of lines) {
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        other.push(text);
        continue;
      }
      logs.push(line);
      for (const w of waiters) if (w.match(line)) w.resolve(line);
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => other.push(chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const output = () => other.join('').slice(-4_000);
  return {
    child,
    logs,
    output,
    exited,
    waitForLog(match, timeoutMs) {
      const past = logs.find(match);
      if (past) return Promise.resolve(past);
      return new Promise<LogLine>((resolve, reject) => {
        const waiter = { match, resolve: (l: LogLine) => done(() => resolve(l)) };
        const last = () => logs.slice(-5).map((l) => JSON.stringify(l)).join('\n');
        const timer = setTimeout(() => done(() => reject(new Error(`no matching log line after ${timeoutMs} ms; last log lines:\n${last()}\noutput:\n${output()}`))), timeoutMs);
        const done = (settle: () => void) => {
          clearTimeout(timer);
          waiters.delete(waiter);
          settle();
        };
        waiters.add(waiter);
        void exited.then(({ code, signal }) =>
          done(() => reject(new Error(`indexer exited (code ${code}, signal ${signal}) before the awaited log line; output:\n${output()}`))),
        );
      });
    },
  };
}

/** The log line the pipeline writes when it begins, with the first block it will fetch. */
export const isPipelineStart = (l: LogLine) => l.msg === 'resuming' || l.msg === 'starting';

/** SIGKILL (if it still runs); resolves with how it ended, which says whether it died on its own first. */
export async function killHard(p: IndexerProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  return p.exited;
}
