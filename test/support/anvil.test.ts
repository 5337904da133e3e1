import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseEther, type Address } from 'viem';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './contracts.js';
import { resolveAnvilBinary, startAnvil, startTestNode, useTestNode } from './anvil.js';

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    return res.ok;
  } catch {
    return false;
  }
}

async function waitUntilDown(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!(await answers(url))) return true;
    await sleep(50);
  }
  return false;
}

describe('anvil process', () => {
  it('resolves the binary shipped by @foundry-rs/anvil', () => {
    expect(resolveAnvilBinary()).toMatch(/@foundry-rs[\\/]anvil-[a-z0-9]+-[a-z0-9]+[\\/]bin[\\/]anvil(\.exe)?$/);
  });

  it('starts on a free port with the requested chain id and stops', async () => {
    const [a, b] = await Promise.all([startAnvil({ chainId: 4242 }), startAnvil({ chainId: 4243 })]);
    try {
      expect(a.port).not.toBe(b.port);
      expect(a.url).toBe(`http://127.0.0.1:${a.port}`);
      expect(a.chainId).toBe(4242);
      expect(await answers(a.url)).toBe(true);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    expect(await answers(a.url)).toBe(false);
    expect(await answers(b.url)).toBe(false);
    await a.stop(); // idempotent
  });

  it('reports startup failures with anvil output', async () => {
    await expect(startAnvil({ args: ['--no-such-flag'] })).rejects.toThrow(/anvil exited during startup[\s\S]*no-such-flag/);
  });

  it('dies with its parent process, even on SIGKILL', async () => {
    const script = fileURLToPath(new URL('./fixtures/anvil-child.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /URL (\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.on('exit', (code) => reject(new Error(`child exited early with ${code}`)));
    });
    expect(await answers(url)).toBe(true);
    child.kill('SIGKILL');
    expect(await waitUntilDown(url, 10_000)).toBe(true);
  });
});

describe('anvil helpers', () => {
  const node = useTestNode({ chainId: 31337 });

  it('has funded, unlocked dev accounts and wallet clients', async () => {
    const n = node();
    expect(n.accounts).toHaveLength(10);
    expect(await n.public.getBalance({ address: n.accounts[1]! })).toBe(parseEther('10000'));
    const to = '0x000000000000000000000000000000000000bEEF' as Address;
    const hash = await n.wallet(1).sendTransaction({ to, value: 5n });
    await n.waitReceipt(hash);
    expect(await n.public.getBalance({ address: to })).toBe(5n);
  });

  it('mines blocks on demand and credits the coinbase', async () => {
    const n = node();
    const start = await n.public.getBlockNumber();
    const miner = '0x00000000000000000000000000000000000C0FFE' as Address;
    await n.setCoinbase(miner);
    await n.mine(3);
    expect(await n.public.getBlockNumber()).toBe(start + 3n);
    const block = await n.public.getBlock();
    expect(block.miner.toLowerCase()).toBe(miner.toLowerCase());
  });

  it('queues transactions while automine is off', async () => {
    const n = node();
    await n.setAutomine(false);
    try {
      const before = await n.public.getBlockNumber();
      const receipt = n.send({ to: n.accounts[2]!, value: 1n, from: 3 });
      // 'auto' mining noticed automine is off and mined exactly one block for it.
      expect((await receipt).blockNumber).toBe(before + 1n);
      const hash = await n.sendTransaction({ from: n.accounts[3]!, to: n.accounts[2]!, value: '0x1' });
      await sleep(50);
      expect(await n.public.getBlockNumber()).toBe(before + 1n);
      await n.mine();
      expect((await n.waitReceipt(hash)).blockNumber).toBe(before + 2n);
    } finally {
      await n.setAutomine(true);
    }
  });

  it('snapshots and reverts state', async () => {
    const n = node();
    const id = await n.snapshot();
    const height = await n.public.getBlockNumber();
    await n.mine(5);
    await n.setBalance(n.accounts[4]!, 1n);
    expect(await n.revert(id)).toBe(true);
    expect(await n.public.getBlockNumber()).toBe(height);
    expect(await n.public.getBalance({ address: n.accounts[4]! })).toBe(parseEther('10000'));
  });

  it('reorgs the chain tip with anvil_reorg and can include new transactions', async () => {
    const n = node();
    await n.mine(4);
    const height = await n.public.getBlockNumber();
    const old = await n.public.getBlock({ blockNumber: height - 1n });
    const to = '0x000000000000000000000000000000000000dEaD' as Address;
    await n.reorg(2, [[{ from: n.accounts[5]!, to, value: '0x2a' }, 0]]);
    expect(await n.public.getBlockNumber()).toBe(height);
    const replaced = await n.public.getBlock({ blockNumber: height - 1n });
    expect(replaced.hash).not.toBe(old.hash);
    expect(replaced.transactions).toHaveLength(1);
    expect(await n.public.getBalance({ address: to })).toBe(42n);
    await n.rollback(1);
    expect(await n.public.getBlockNumber()).toBe(height - 1n);
  });

  it('sets the next base fee', async () => {
    const n = node();
    await n.setNextBlockBaseFee(123_456_789n);
    await n.mine();
    expect((await n.public.getBlock()).baseFeePerGas).toBe(123_456_789n);
  });
});

describe('anvil modes', () => {
  it('interval mining produces blocks on its own', async () => {
    const n = await startTestNode({ blockTime: 0.2 });
    try {
      await sleep(700);
      expect(await n.public.getBlockNumber()).toBeGreaterThanOrEqual(2n);
    } finally {
      await n.stop();
    }
  });

  it('no-mining mode and custom account count', async () => {
    const n = await startTestNode({ noMining: true, accounts: 3 });
    try {
      expect(n.accounts).toHaveLength(3);
      await n.sendTransaction({ from: n.accounts[0]!, to: n.accounts[1]!, value: '0x1' });
      await sleep(100);
      expect(await n.public.getBlockNumber()).toBe(0n);
      await n.mine(2);
      expect(await n.public.getBlockNumber()).toBe(2n);
    } finally {
      await n.stop();
    }
  });
});
