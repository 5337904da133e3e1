import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as committed from '../../src/devnet/artifacts.js';
import { compileCached, loadContracts, REPO_ROOT, sourceHash } from './contracts.js';

const EXPECTED = ['AirdropToken', 'BareWrappedNative', 'CloneFactory', 'InitializableERC20', 'Proxy1967', 'RebasingToken', 'TestERC1155', 'TestERC20', 'TestERC721', 'WETH9'];

function runChild(script: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

describe('contracts', () => {
  it('compiles every contract to an ABI and bytecode', async () => {
    const contracts = await loadContracts();
    expect(Object.keys(contracts).sort()).toEqual(EXPECTED);
    for (const name of EXPECTED) {
      const c = contracts[name as keyof typeof contracts];
      expect(c.abi.length).toBeGreaterThan(0);
      expect(c.bytecode).toMatch(/^0x[0-9a-f]{200,}$/);
    }
  });

  it('committed src/devnet/artifacts.ts matches the sources (else run `npx tsx test/support/build-contracts.ts`)', async () => {
    expect(committed.sourceHash).toBe(sourceHash());
    const contracts = await loadContracts();
    for (const name of EXPECTED) {
      const fresh = contracts[name as keyof typeof contracts];
      const shipped = committed.contracts[name as keyof typeof committed.contracts];
      expect(shipped.bytecode, name).toBe(fresh.bytecode);
      expect(shipped.abi, name).toEqual(fresh.abi);
    }
  });

  it('compiles once when several processes ask at the same time', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'explorer-contracts-'));
    try {
      const script = fileURLToPath(new URL('./fixtures/compile-child.ts', import.meta.url));
      const outputs = await Promise.all([runChild(script, [cacheDir]), runChild(script, [cacheDir])]);
      expect(outputs.filter((o) => o.includes('COMPILED'))).toHaveLength(1);
      for (const o of outputs) expect(o).toContain(`DONE ${sourceHash()}`);
      // Only the published artifact remains: no lock, no temp file.
      expect(readdirSync(cacheDir)).toEqual([`${sourceHash()}.json`]);
      // A later call in this process is served from that cache.
      let compiled = false;
      await compileCached({ cacheDir, onCompile: () => (compiled = true) });
      expect(compiled).toBe(false);
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});
