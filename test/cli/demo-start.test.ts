/**
 * `explorer start` without a chain runs its own anvil: if that anvil dies (killed, out of
 * memory), the demo has no chain left. Outside review: the indexer then retried for ever and no
 * line said why; now the process says so and exits non-zero.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startCli } from '../support/cli.js';
import { freePort } from '../support/api-process.js';

const dir = mkdtempSync(join(tmpdir(), 'explorer-demo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The pid of a process named `name` among `root`'s descendants (Linux /proc), or null. */
function descendantNamed(root: number, name: string): number | null {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const isUnder = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) if (p === root) return true;
    return false;
  };
  for (const pid of parents.keys()) {
    if (!isUnder(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name) return pid;
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

it.runIf(process.platform === 'linux')('the demo chain dying ends `explorer start` with a line saying so', async () => {
  const port = await freePort();
  const cli = startCli(['start', '--port', String(port), '--data-dir', join(dir, 'data')], { cwd: dir });
  try {
    // up once the API answers: the demo chain is running and indexed by then
    const deadline = Date.now() + 120_000;
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status > 0, () => false);
      if (ok) break;
      if (Date.now() > deadline || cli.child.exitCode !== null) throw new Error(`explorer start did not come up: ${cli.stderr()}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const anvil = descendantNamed(cli.child.pid!, 'anvil');
    expect(anvil).not.toBeNull();
    const exited = new Promise<number | null>((resolve) => cli.child.once('exit', (code) => resolve(code)));
    process.kill(anvil!, 'SIGKILL');
    const code = await Promise.race([exited, new Promise<'still running'>((r) => setTimeout(() => r('still running'), 30_000))]);
    expect(code).toBe(1);
    expect(cli.stderr()).toContain('explorer: the demo chain (anvil) stopped on its own');
  } finally {
    await cli.stop();
  }
}, 180_000);
