import { describe, expect, it } from 'vitest';
import { BatchCap, GROW_AFTER, PROBE_AFTER, type BatchCapChange } from './batch-cap.js';
import type { BatchRefusal } from './batch-refusal.js';

const byCalls = (limit: number | null = null): BatchRefusal => ({ by: 'calls', limit, message: 'batch too large' });
const byBytes: BatchRefusal = { by: 'bytes', limit: null, message: 'response too large' };

function capOf(setting: number) {
  const changes: BatchCapChange[] = [];
  return { cap: new BatchCap(setting, (c) => changes.push(c)), changes };
}

describe('BatchCap', () => {
  it('takes the number a refusal names, else half the batch; never 0, never the refused size', () => {
    const { cap, changes } = capOf(40);
    expect(cap.calls).toBe(40);
    cap.refused(byCalls(), 40, 0);
    expect(cap.calls).toBe(20);
    cap.refused(byCalls(3), 20, 0);
    expect(cap.calls).toBe(3);
    cap.refused(byCalls(), 2, 0);
    expect(cap.calls).toBe(1);
    cap.refused(byCalls(), 1, 0);
    expect(cap.calls).toBe(1);
    expect(changes.map((c) => c.cap)).toEqual([20, 3, 1]);
  });

  it('finds a cap by calls that no refusal names: halving, then trying halfway up until the sizes meet', () => {
    const { cap } = capOf(40);
    // a URL that takes at most 3 calls, and says only "batch too large"
    let refusals = 0;
    const send = () => {
      const size = cap.calls;
      if (size <= 3) return cap.answered(size);
      refusals++;
      cap.refused(byCalls(), size, 0);
    };
    for (let i = 0; i < 4; i++) send();
    expect(cap.calls).toBe(2);
    expect(refusals).toBe(4);
    for (let i = 0; i < 10 * PROBE_AFTER; i++) send();
    expect(cap.calls).toBe(3);
    // 40, 20, 10, 5, then one probe too far (4); none after
    expect(refusals).toBe(5);
  });

  it('ignores a refusal of a batch already larger than the cap (one in flight before it was lowered)', () => {
    const { cap, changes } = capOf(40);
    cap.refused(byCalls(5), 40, 0);
    cap.refused(byCalls(), 40, 0);
    expect(cap.calls).toBe(5);
    expect(changes).toHaveLength(1);
  });

  it('by bytes, keeps what fitted; grows back by doubles after full batches, up to the setting', () => {
    const { cap, changes } = capOf(40);
    cap.refused(byBytes, 40, 6);
    expect(cap.calls).toBe(6);
    // batches smaller than the cap say nothing of it
    for (let i = 0; i < 2 * GROW_AFTER; i++) cap.answered(3);
    expect(cap.calls).toBe(6);
    for (let i = 0; i < GROW_AFTER; i++) cap.answered(6);
    expect(cap.calls).toBe(12);
    // a refusal resets the count
    for (let i = 0; i < GROW_AFTER - 1; i++) cap.answered(12);
    cap.refused(byBytes, 12, 10);
    expect(cap.calls).toBe(10);
    for (let i = 0; i < GROW_AFTER; i++) cap.answered(10);
    expect(cap.calls).toBe(20);
    for (let i = 0; i < GROW_AFTER; i++) cap.answered(20);
    expect(cap.calls).toBe(40);
    expect(changes.map((c) => ('grown' in c ? `+${c.cap}` : `-${c.cap}`))).toEqual(['-6', '+12', '-10', '+20', '+40']);
  });

  it('never grows past a cap by calls, which stays', () => {
    const { cap } = capOf(40);
    cap.refused(byCalls(8), 40, 0);
    cap.refused(byBytes, 8, 2);
    expect(cap.calls).toBe(2);
    for (let round = 0; round < 5; round++) for (let i = 0; i < GROW_AFTER; i++) cap.answered(cap.calls);
    expect(cap.calls).toBe(8);
  });
});
