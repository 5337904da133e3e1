import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentProcess } from '../../src/db/process-identity.js';
import { REPO_ROOT } from '../support/contracts.js';

const ROUNDS = process.env.RELIABILITY_FULL ? 1_000 : 200;
const WORKERS = 3;

interface Worker {
  child: ChildProcess;
  lines: Interface;
  next(): Promise<Record<string, unknown>>;
  send(message: object): void;
}

function startWorker(): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/fixtures/lock-worker.ts'], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const iterator = lines[Symbol.asyncIterator]();
  return {
    child,
    lines,
    async next() {
      const { value, done } = await iterator.next();
      if (done) throw new Error(`lock worker ${child.pid} exited`);
      return JSON.parse(value as string) as Record<string, unknown>;
    },
    send: (message) => child.stdin!.write(`${JSON.stringify(message)}\n`),
  };
}

const me = currentProcess();
const GONE_PID = 4_194_300; // above any pid in use here
const record = (fields: Record<string, unknown>) => JSON.stringify({ ...me, nonce: Math.random().toString(16).slice(2), since: 'x', ...fields });

/** What each round leaves in the directory before the workers race for it. */
const SEEDS: Array<{ name: string; expectWinner: boolean; seed(file: string): void }> = [
  { name: 'no lock', expectWinner: true, seed: () => undefined },
  { name: 'dead holder', expectWinner: true, seed: (f) => writeFileSync(f, record({ pid: GONE_PID })) },
  // a live pid (this test runner) whose start time differs: the pid was reused by another process
  { name: 'reused pid', expectWinner: true, seed: (f) => writeFileSync(f, record({ pid: process.pid, startTime: '1' })) },
  { name: 'old-format dead pid', expectWinner: true, seed: (f) => writeFileSync(f, String(GONE_PID)) },
  {
    name: 'empty file of an old crash',
    expectWinner: true,
    seed: (f) => {
      writeFileSync(f, '');
      const old = new Date(Date.now() - 60_000);
      utimesSync(f, old, old);
    },
  },
  // a holder on another host is never judged, even with a pid that is dead here
  { name: 'other host', expectWinner: false, seed: (f) => writeFileSync(f, record({ pid: GONE_PID, host: 'elsewhere.example' })) },
];

describe('data directory lock: real processes racing', () => {
  let workers: Worker[] = [];
  const root = mkdtempSync(join(tmpdir(), 'explorer-lock-race-'));

  beforeAll(() => {
    workers = Array.from({ length: WORKERS }, startWorker);
  });
  afterAll(() => {
    for (const w of workers) w.child.kill();
    rmSync(root, { recursive: true, force: true });
  });

  it(`exactly one of ${WORKERS} processes wins each of ${ROUNDS} rounds, over fresh and stale locks`, async () => {
    const wins: Record<string, number> = {};
    for (let round = 0; round < ROUNDS; round++) {
      const kind = SEEDS[round % SEEDS.length]!;
      const lockDir = join(root, String(round));
      mkdirSync(lockDir);
      kind.seed(join(lockDir, 'explorer.lock'));
      const at = Date.now() + 30;
      for (const w of workers) w.send({ op: 'race', dir: lockDir, at });
      const results = await Promise.all(workers.map((w) => w.next()));
      const winners = workers.filter((_, i) => results[i]!.won === true);
      const refused = results.filter((r) => r.won === false);
      expect(refused.every((r) => r.error === 'DataDirInUseError'), `round ${round} (${kind.name}): ${JSON.stringify(refused)}`).toBe(true);
      expect(winners.length, `round ${round} (${kind.name}): ${JSON.stringify(results)}`).toBe(kind.expectWinner ? 1 : 0);
      wins[kind.name] = (wins[kind.name] ?? 0) + winners.length;
      for (const w of winners) {
        w.send({ op: 'release' });
        await w.next();
      }
      // released, with no claim or temporary file left behind
      const left = readdirSync(lockDir);
      expect(left, `round ${round} (${kind.name})`).toEqual(kind.expectWinner ? [] : ['explorer.lock']);
    }
    console.log(`data-dir lock race: ${ROUNDS} rounds × ${WORKERS} processes, wins per seed ${JSON.stringify(wins)}, never two`);
  }, 300_000);
});
