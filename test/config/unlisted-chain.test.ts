/**
 * The demo's devnet is a chain no configuration lists: it still takes the per-chain settings
 * from the flags, the environment and the file, as a listed chain does (outside review: `npm
 * start -- --history-from-block 100` kept every block's history on the demo).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { loadConfig, unlistedChainConfig } from '../../src/config/config.js';

const dir = mkdtempSync(join(tmpdir(), 'unlisted-chain-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('gets the flags, the environment and the file as a listed chain would', () => {
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ transfersPerRange: 7_000 }));
  // flags as commander hands them over, parsed
  const flags = { historyFromBlock: 100n, reorgWindow: 8, config: file };
  const env = { EXPLORER_START_BLOCK: '5' };
  const demo = unlistedChainConfig(flags, 31337, ['http://127.0.0.1:8545'], env);
  const listed = loadConfig(flags, { ...env, EXPLORER_CHAINS: '31337=http://127.0.0.1:8545' }).chains[0]!;
  expect(demo).toEqual(listed);
  expect([demo.historyFromBlock, demo.reorgWindow, demo.startBlock, demo.transfersPerRange]).toEqual([100n, 8, 5n, 7_000]);
});
