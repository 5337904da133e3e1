import { describe, expect, it } from 'vitest';
import { COUNT_GATE, ReadGate, ReadsBusyError } from './read-gate.js';

/** A count that ends when the test says so, and says how often it was started. */
function heldCount() {
  let release!: (value: string) => void;
  const done = new Promise<string>((resolve) => (release = resolve));
  const held = { starts: 0, release, count: () => { held.starts++; return done; } };
  return held;
}

describe('ReadGate', () => {
  const db = {};

  it('runs at most `concurrency` counts, queues `waiting` more, refuses the next as busy', async () => {
    const gate = new ReadGate({ ...COUNT_GATE, concurrency: 2, waiting: 1 });
    const counts = [heldCount(), heldCount(), heldCount()];
    const results = counts.map((c, i) => gate.run(db, `block ${i}`, c.count));
    await Promise.resolve();
    expect(counts.map((c) => c.starts)).toEqual([1, 1, 0]);
    const refused = await gate.run(db, 'block 3', heldCount().count).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ReadsBusyError);
    expect((refused as ReadsBusyError).retryAfterSeconds).toBeGreaterThan(0);
    counts[0]!.release('a');
    expect(await results[0]).toBe('a');
    await new Promise((r) => setTimeout(r, 0));
    expect(counts[2]!.starts).toBe(1);
    counts[1]!.release('b');
    counts[2]!.release('c');
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c']);
    // room again once they are done
    const after = heldCount();
    const again = gate.run(db, 'block 3', after.count);
    after.release('d');
    expect(await again).toBe('d');
  });

  it('shares a running count with the same key on the same database, not across databases', async () => {
    const gate = new ReadGate({ ...COUNT_GATE, concurrency: 4, waiting: 0 });
    const first = heldCount();
    const second = heldCount();
    const other = heldCount();
    const a = gate.run(db, 'token at 7', first.count);
    const b = gate.run(db, 'token at 7', second.count);
    const c = gate.run({}, 'token at 7', other.count);
    await Promise.resolve();
    expect([first.starts, second.starts, other.starts]).toEqual([1, 0, 1]);
    first.release('x');
    other.release('y');
    expect(await Promise.all([a, b, c])).toEqual(['x', 'x', 'y']);
    // finished: the next ask counts again (a kept count is the table's business, not the gate's)
    const later = heldCount();
    const d = gate.run(db, 'token at 7', later.count);
    later.release('z');
    expect(await d).toBe('z');
    expect(later.starts).toBe(1);
  });

  it('a failed count is not kept: the next ask runs it again', async () => {
    const gate = new ReadGate({ ...COUNT_GATE, concurrency: 1, waiting: 0 });
    await expect(gate.run(db, 'k', () => Promise.reject(new Error('statement timeout')))).rejects.toThrow('statement timeout');
    expect(await gate.run(db, 'k', async () => 'counted')).toBe('counted');
  });
});
