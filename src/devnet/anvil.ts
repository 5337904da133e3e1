/**
 * Starts and stops a local anvil node (from the `@foundry-rs/anvil` npm package, or a binary given
 * by ANVIL_BINARY / found on PATH). Shared by the zero-config demo, the benchmarks and the tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, mkdtempSync, rmSync, constants as fsConstants } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface AnvilOptions {
  /** Default 31337. */
  chainId?: number;
  /** Interval mining, in seconds (fractions allowed). Without it and without `noMining`, anvil mines one block per transaction. */
  blockTime?: number;
  /** Mine only on `evm_mine` / `anvil_mine`. */
  noMining?: boolean;
  /** Number of funded dev accounts. Default 10. */
  accounts?: number;
  /** Ether per dev account. Default 10000. */
  balance?: number;
  mnemonic?: string;
  gasLimit?: bigint | number;
  /** Base fee of the genesis block, in wei. */
  baseFee?: bigint | number;
  hardfork?: string;
  /** Default 0: the OS picks a free port and anvil reports it, so concurrent starts never race for one. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Appended verbatim to the command line. */
  args?: string[];
  /** Path to the anvil executable; default {@link resolveAnvilBinary}. */
  binary?: string;
  /** Default 30 s. */
  startTimeoutMs?: number;
  /**
   * Receives anvil's output line by line. anvil cannot run with --quiet here: that also silences
   * the "Listening on" line that tells us the port it picked.
   */
  onLog?: (line: string) => void;
}

export interface AnvilInstance {
  url: string;
  host: string;
  port: number;
  chainId: number;
  /** Pid of the process we spawned (a supervising shell on POSIX, anvil itself on Windows). */
  pid: number;
  /** Last lines anvil printed, for error messages. */
  output(): string;
  /** Resolves once anvil has exited. Idempotent. */
  stop(): Promise<void>;
  /** Resolves when anvil exits, stopped or on its own. */
  exited: Promise<void>;
}

const require = createRequire(import.meta.url);

const PLATFORM_PACKAGE: Partial<Record<string, Partial<Record<string, string>>>> = {
  linux: { x64: 'linux-amd64', arm64: 'linux-arm64' },
  darwin: { x64: 'darwin-amd64', arm64: 'darwin-arm64' },
  win32: { x64: 'win32-amd64' },
};

function isExecutable(path: string): boolean {
  try {
    accessSync(path, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Locates the native anvil executable. We spawn the binary itself rather than the package's
 * `bin.mjs` wrapper: the wrapper is a second node process between us and anvil, which makes
 * killing anvil depend on the wrapper forwarding signals.
 */
export function resolveAnvilBinary(): string {
  const fromEnv = process.env.ANVIL_BINARY;
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw new Error(`ANVIL_BINARY=${fromEnv} is not an executable file`);
    return fromEnv;
  }
  const exe = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  const suffix = PLATFORM_PACKAGE[process.platform]?.[process.arch];
  if (suffix) {
    const request = `@foundry-rs/anvil-${suffix}/bin/${exe}`;
    // The platform package is an optional dependency of @foundry-rs/anvil: usually hoisted next to
    // it, but nested under it when npm could not hoist.
    const resolvers = [require];
    try {
      resolvers.push(createRequire(require.resolve('@foundry-rs/anvil/package.json')));
    } catch {
      // @foundry-rs/anvil itself is absent; the platform package may still be installed directly.
    }
    for (const r of resolvers) {
      try {
        const path = r.resolve(request);
        if (isExecutable(path)) return path;
      } catch {
        // try the next location
      }
    }
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && isExecutable(join(dir, exe))) return join(dir, exe);
  }
  throw new Error(
    `anvil not found: install the @foundry-rs/anvil npm package (it ships the binary for ${process.platform}-${process.arch}), ` +
      'put anvil on PATH, or set ANVIL_BINARY',
  );
}

function anvilArgs(opts: AnvilOptions): string[] {
  const args = ['--host', opts.host ?? '127.0.0.1', '--port', String(opts.port ?? 0)];
  args.push('--chain-id', String(opts.chainId ?? 31337));
  if (opts.noMining) args.push('--no-mining');
  else if (opts.blockTime !== undefined) args.push('--block-time', String(opts.blockTime));
  if (opts.accounts !== undefined) args.push('--accounts', String(opts.accounts));
  if (opts.balance !== undefined) args.push('--balance', String(opts.balance));
  if (opts.mnemonic !== undefined) args.push('--mnemonic', opts.mnemonic);
  if (opts.gasLimit !== undefined) args.push('--gas-limit', String(opts.gasLimit));
  if (opts.baseFee !== undefined) args.push('--block-base-fee-per-gas', String(opts.baseFee));
  if (opts.hardfork !== undefined) args.push('--hardfork', opts.hardfork);
  args.push(...(opts.args ?? []));
  return args;
}

/**
 * POSIX supervisor run by /bin/sh: anvil gets SIGTERM as soon as our end of the shell's stdin
 * closes. The kernel closes it when this process dies in any way, SIGKILL included, so no anvil
 * outlives the test worker or CLI that started it. fd 3 is needed because a non-interactive
 * shell gives background jobs /dev/null as stdin.
 */
const SUPERVISOR = [
  'exec 3<&0',
  '"$0" "$@" </dev/null &',
  'anvil=$!',
  '{ read -r _ <&3; kill -TERM $anvil 2>/dev/null; } &',
  'watcher=$!',
  'wait $anvil',
  'status=$?',
  'kill $watcher 2>/dev/null',
  'exit $status',
].join('\n');

const live = new Set<ChildProcess>();
/** each running anvil's own HOME (startAnvil) */
const homes = new Map<ChildProcess, string>();
let exitHookInstalled = false;

function removeHome(child: ChildProcess): void {
  const home = homes.get(child);
  homes.delete(child);
  if (home !== undefined) rmSync(home, { recursive: true, force: true });
}

function killTree(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    // Negative pid: the whole process group (shell, anvil, watcher), see `detached` below.
    if (process.platform === 'win32') child.kill(signal);
    else process.kill(-child.pid, signal);
  } catch {
    // ESRCH: already gone.
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Belt and braces next to the stdin supervisor: on a normal exit, kill immediately rather
  // than leaving anvil a moment to notice the closed pipe.
  process.on('exit', () => {
    for (const child of live) killTree(child, 'SIGKILL');
    for (const child of [...homes.keys()]) removeHome(child);
  });
}

const LISTENING = /Listening on (\S+):(\d+)/;

export async function startAnvil(opts: AnvilOptions = {}): Promise<AnvilInstance> {
  const binary = opts.binary ?? resolveAnvilBinary();
  const args = anvilArgs(opts);
  const chainId = opts.chainId ?? 31337;
  const posix = process.platform !== 'win32';
  // anvil writes the states it keeps off memory to $HOME/.foundry/anvil/tmp and never removes
  // them: a parent chain of 12,500 blocks left 3.2 GB there per instance, and the test suite 75 GB
  // over a day until the disk was full. Each instance gets a home of its own, removed when it stops.
  const home = mkdtempSync(join(tmpdir(), 'anvil-home-'));
  const env = { ...process.env, HOME: home };
  const child = posix
    ? spawn('/bin/sh', ['-c', SUPERVISOR, binary, ...args], { stdio: ['pipe', 'pipe', 'pipe'], detached: true, env })
    : spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  live.add(child);
  homes.set(child, home);
  installExitHook();

  const tail: string[] = [];
  let exited = false;
  let announced: { host: string; port: number } | undefined;
  const exitPromise = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      live.delete(child);
      removeHome(child);
      resolve();
    });
    // spawn failures (ENOENT, EACCES) emit 'error' and possibly no 'exit'.
    child.once('error', (err) => {
      tail.push(`spawn error: ${err.message}`);
      exited = true;
      live.delete(child);
      removeHome(child);
      resolve();
    });
  });

  // anvil blocks once a pipe buffer fills, so both streams are always drained, logged or not.
  const onChunk = (() => {
    let partial = '';
    return (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (!announced) {
          const m = LISTENING.exec(line);
          if (m) announced = { host: m[1]!, port: Number(m[2]) };
        }
        tail.push(line);
        if (tail.length > 50) tail.shift();
        opts.onLog?.(line);
      }
    };
  })();
  child.stdout?.on('data', onChunk);
  child.stderr?.on('data', onChunk);

  const output = () => tail.join('\n');
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (exited) return;
      if (posix) child.stdin?.end();
      else killTree(child, 'SIGTERM');
      const graceful = await Promise.race([exitPromise.then(() => true), sleep(5_000).then(() => false)]);
      if (!graceful) {
        killTree(child, 'SIGKILL');
        await exitPromise;
      }
    })();
    return stopping;
  };

  const timeoutMs = opts.startTimeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  try {
    while (!announced) {
      if (exited) throw new Error(`anvil exited during startup: ${reasonIn(output())}\n${output()}`);
      if (Date.now() > deadline) throw new Error(`anvil did not start within ${timeoutMs} ms:\n${output()}`);
      await sleep(20);
    }
    // anvil reports 0.0.0.0 / :: when listening on all interfaces; connect through loopback.
    const host = /^(0\.0\.0\.0|::|\[::\])$/.test(announced.host) ? '127.0.0.1' : announced.host;
    const url = `http://${host}:${announced.port}`;
    for (;;) {
      if (exited) throw new Error(`anvil exited during startup: ${reasonIn(output())}\n${output()}`);
      const answered = await rpcChainId(url);
      if (answered !== undefined) {
        if (answered !== chainId) throw new Error(`anvil at ${url} reports chain id ${answered}, expected ${chainId}`);
        break;
      }
      if (Date.now() > deadline) throw new Error(`anvil did not answer eth_chainId within ${timeoutMs} ms:\n${output()}`);
      await sleep(50);
    }
    return { url, host, port: announced.port, chainId, pid: child.pid ?? -1, output, stop, exited: exitPromise };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * What anvil said of why it stopped, for the one line a command prints (cli/errors.ts): its last
 * line that names an error (e.g. a state file it could not parse), else its last line.
 */
function reasonIn(output: string): string {
  const lines = output.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return [...lines].reverse().find((l) => /error|fail/i.test(l)) ?? lines.at(-1) ?? 'no output';
}

async function rpcChainId(url: string): Promise<number | undefined> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(2_000),
    });
    const body = (await res.json()) as { result?: string };
    return body.result === undefined ? undefined : Number(body.result);
  } catch {
    return undefined;
  }
}

