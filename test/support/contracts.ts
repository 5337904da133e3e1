/**
 * Compiles contracts/*.sol with solc-js and caches the artifacts on disk.
 *
 * Tests compile from source (instead of trusting src/devnet/artifacts.ts) so a contract edit is
 * picked up without a manual regeneration step; the cache keeps that to one compile per source
 * change, shared by every vitest worker.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, openSync, closeSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import solc from 'solc';
import type { Abi, Hex } from 'viem';
import type { DevnetArtifacts } from '../../src/devnet/artifacts.js';

const require = createRequire(import.meta.url);

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CONTRACTS_DIR = join(REPO_ROOT, 'contracts');
export const CACHE_DIR = join(REPO_ROOT, 'node_modules', '.cache', 'explorer-contracts');

const OZ_ROOT = dirname(require.resolve('@openzeppelin/contracts/package.json'));
const OZ_VERSION = (JSON.parse(readFileSync(join(OZ_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * Pinned rather than left to solc's default so the bytecode does not change with a solc bump and
 * runs on anvil's `--hardfork cancun` as well as on newer ones. Cancun is the floor: OpenZeppelin 5
 * emits MCOPY.
 */
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
} as const;

export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
  deployedBytecode: Hex;
}

/** Shape of the committed artifacts, with ABIs typed `as const` so viem infers function names and args. */
export type Contracts = DevnetArtifacts['contracts'];
export type ContractName = keyof Contracts;

export interface CompileResult {
  solcVersion: string;
  sourceHash: string;
  contracts: Record<string, CompiledContract>;
}

interface SourceFile {
  /** Path as solc sees it, e.g. `contracts/TestERC20.sol`. */
  name: string;
  content: string;
}

export function readSources(): SourceFile[] {
  return readdirSync(CONTRACTS_DIR)
    .filter((f) => f.endsWith('.sol'))
    .sort()
    .map((f) => ({ name: `contracts/${f}`, content: readFileSync(join(CONTRACTS_DIR, f), 'utf8') }));
}

/**
 * Identifies a compilation. OpenZeppelin sources are covered by their package version rather than
 * by hashing the imported files, which would mean resolving the import graph before compiling.
 */
export function sourceHash(sources: SourceFile[] = readSources()): string {
  const h = createHash('sha256');
  h.update(`solc ${solc.version()}\0oz ${OZ_VERSION}\0${JSON.stringify(SETTINGS)}\0`);
  for (const s of sources) h.update(`${s.name}\0${s.content}\0`);
  return h.digest('hex').slice(0, 16);
}

function resolveImport(path: string): { contents: string } | { error: string } {
  try {
    if (path.startsWith('@openzeppelin/contracts/')) {
      return { contents: readFileSync(join(OZ_ROOT, path.slice('@openzeppelin/contracts/'.length)), 'utf8') };
    }
    return { contents: readFileSync(join(REPO_ROOT, path), 'utf8') };
  } catch (err) {
    return { error: `cannot resolve import ${path}: ${(err as Error).message}` };
  }
}

interface SolcOutput {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<
    string,
    Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
  >;
}

/** Uncached, synchronous compile of every contract in contracts/. Throws with solc's messages on error. */
export function compileContracts(): CompileResult {
  const sources = readSources();
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(sources.map((s) => [s.name, { content: s.content }])),
    settings: SETTINGS,
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: resolveImport })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  }
  const contracts: Record<string, CompiledContract> = {};
  for (const source of sources) {
    for (const [name, c] of Object.entries(output.contracts?.[source.name] ?? {})) {
      if (contracts[name]) throw new Error(`contract name ${name} is defined twice; artifacts are keyed by name`);
      contracts[name] = {
        abi: c.abi,
        bytecode: `0x${c.evm.bytecode.object}`,
        deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
      };
    }
  }
  return { solcVersion: solc.version(), sourceHash: sourceHash(sources), contracts };
}

/** A lock older than this was left by a killed process; a real compile takes well under it. */
const STALE_LOCK_MS = 3 * 60_000;

function tryRead(path: string): CompileResult | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as CompileResult;
  } catch {
    return undefined;
  }
}

/**
 * Compiles once per source hash across processes: the first caller takes an exclusive lock file and
 * publishes the result with an atomic rename, so the others never read a half-written file; they
 * poll until it appears (or the lock goes stale, then they take over).
 */
export async function compileCached(opts: { cacheDir?: string; onCompile?: () => void } = {}): Promise<CompileResult> {
  const cacheDir = opts.cacheDir ?? CACHE_DIR;
  const hash = sourceHash();
  const file = join(cacheDir, `${hash}.json`);
  const lock = join(cacheDir, `${hash}.lock`);
  mkdirSync(cacheDir, { recursive: true });
  for (;;) {
    const cached = tryRead(file);
    if (cached) return cached;
    let fd: number | undefined;
    try {
      fd = openSync(lock, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (fd === undefined) {
      try {
        if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { force: true });
      } catch {
        // The holder finished between our open and stat: the next loop reads its result.
      }
      await sleep(100);
      continue;
    }
    try {
      let result = tryRead(file);
      if (!result) {
        opts.onCompile?.();
        result = compileContracts();
      }
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(result));
      renameSync(tmp, file);
      return result;
    } finally {
      closeSync(fd);
      rmSync(lock, { force: true });
    }
  }
}

let loaded: Promise<Contracts> | undefined;

/**
 * Artifacts for every contract, typed like src/devnet/artifacts.ts. The static types describe the
 * committed artifacts; test/support/contracts.test.ts fails if those are stale, which keeps the
 * types honest.
 */
export function loadContracts(): Promise<Contracts> {
  loaded ??= compileCached().then((r) => r.contracts as unknown as Contracts);
  return loaded;
}
