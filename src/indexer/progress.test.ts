import { describe, expect, it } from 'vitest';
import { progressReporter } from './progress.js';
import type { IndexBatch } from './transform.js';

const batch = (to: number, blocks: number, transfers: number) => ({ to: BigInt(to), blocks: new Array(blocks), transfers }) as unknown as IndexBatch;

describe('progressReporter (log lines)', () => {
  it('rates over the blocks since the line before, not since the start: a pause is not in them', () => {
    const lines: Array<Record<string, unknown>> = [];
    const log = (obj: Record<string, unknown>) => void lines.push(obj);
    let clock = 1_000_000;
    const report = progressReporter(1, { debug: log, info: log, warn: log, error: log }, false, () => clock);
    // 100 blocks a second for 11 s
    for (let i = 1; i <= 11; i++) {
      clock += 1_000;
      report({ batch: batch(i * 100, 100, 1_000), head: 10_000n, ms: 1_000 });
    }
    // ten minutes without a batch (a node away), then the same pace: the next line's rates are that pace
    clock += 600_000;
    for (let i = 12; i <= 23; i++) {
      clock += 1_000;
      report({ batch: batch(i * 100, 100, 1_000), head: 10_000n, ms: 1_000 });
    }
    // the first batch is said at once; the one after the pause is said (over 10 s since the line
    // before) at its own pace, where the average since the start said 1 block a second
    expect(lines.map((l) => [l.indexed, l.blocksPerS, l.eventsPerS])).toEqual([
      ['100', 100, 1_000],
      ['1200', 100, 1_000],
      ['2300', 100, 1_000],
    ]);
  });
});
