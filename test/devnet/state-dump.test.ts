/**
 * The demo saves its chain through `anvil_dumpState`, whose answer grows with the chain (it
 * carries blocks and transactions): the demo's passed viem's 10 MB default after about 40
 * minutes, and every save after failed. A state past that size is dumped, saved whole, and
 * loaded back by a new node.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { keepStateSaved } from '../../src/devnet/state-saver.js';
import { startTestNode } from '../support/anvil.js';

const dir = mkdtempSync(join(tmpdir(), 'state-dump-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a state over 10 MB (compressed) is saved whole and loads in a new node', async () => {
  const file = join(dir, 'state.json');
  // random code does not compress: 12 accounts of 1 MB put the gzipped dump past 10 MB
  const codes = Array.from({ length: 12 }, (_, i) => ({ address: `0x${(i + 1).toString(16).padStart(40, '0')}` as const, bytecode: `0x${randomBytes(1_000_000).toString('hex')}` as const }));
  const node = await startTestNode();
  try {
    for (const code of codes) await node.test.setCode(code);
    const errors: unknown[] = [];
    const saver = keepStateSaved(() => node.test.dumpState(), file, { intervalMs: 60_000, onError: (e) => errors.push(e) });
    await saver.stop(); // the last save
    expect(errors).toEqual([]);
    expect(statSync(file).size).toBeGreaterThan(24_000_000);
  } finally {
    await node.stop();
  }
  const loaded = await startTestNode({ args: ['--load-state', file] });
  try {
    for (const code of [codes[0]!, codes[11]!]) expect(await loaded.public.getCode({ address: code.address })).toBe(code.bytecode);
  } finally {
    await loaded.stop();
  }
}, 120_000);
