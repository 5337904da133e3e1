import { afterEach, describe, expect, it, vi } from 'vitest';
import { RequestBudget } from './request-budget.js';

const budget = (o: Partial<ConstructorParameters<typeof RequestBudget>[0]> = {}) =>
  new RequestBudget({ concurrency: 2, callsPerSecond: 0, maxBatchCalls: 10, holdMs: 100, ...o });

describe('RequestBudget', () => {
  it('lets at most `concurrency` requests through at once, the next in line as one gives its slot back', async () => {
    const b = budget({ concurrency: 2 });
    const first = await b.acquire(1);
    const second = await b.acquire(1);
    let third = false;
    const pending = b.acquire(1).then((release) => {
      third = true;
      return release;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(third).toBe(false);
    first();
    first(); // a second call must not free a second slot
    (await pending)();
    expect(third).toBe(true);
    let fourth = false;
    const next = b.acquire(1).then(() => (fourth = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(fourth).toBe(true);
    second();
    await next;
  });

  it('an aborted wait for a slot leaves the queue', async () => {
    const b = budget({ concurrency: 1 });
    const held = await b.acquire(1);
    const controller = new AbortController();
    const waiting = b.acquire(1, controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    held();
    // the slot went back to the pool, not to the aborted waiter
    await b.acquire(1);
  });

  it('spends calls at the configured rate', async () => {
    const b = budget({ concurrency: 100, callsPerSecond: 200, maxBatchCalls: 10 });
    const started = Date.now();
    // 100 calls at 200/s from an empty bucket: at least half a second
    for (let i = 0; i < 10; i++) (await b.acquire(10))();
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
  });

  it('a 429 holds requests back for its Retry-After and halves the rate, once per storm; answers raise it at most once a second', async () => {
    const changes: Array<number | null> = [];
    const b = budget({ concurrency: 10, callsPerSecond: 1_000, onRateChange: (c) => changes.push(c.callsPerSecond) });
    for (let i = 0; i < 5; i++) (await b.acquire(10))();
    b.rateLimited(300, 10);
    // at most what was sent in the last second, halved
    expect(b.callsPerSecond).toBeLessThanOrEqual(500);
    const lowered = b.callsPerSecond!;
    b.rateLimited(300, 10); // the same storm: no second cut
    expect(b.callsPerSecond).toBe(lowered);
    const t = Date.now();
    (await b.acquire(1))();
    expect(Date.now() - t).toBeGreaterThanOrEqual(290);
    // raises come at most once a second, a tenth of the cap each
    b.answered();
    expect(b.callsPerSecond).toBe(lowered);
    expect(changes).toEqual([lowered]);
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('without a cap, a 429 to a lone call keeps a batch a second, and raises count the seconds without one, not the answers', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const b = budget({ callsPerSecond: 0, maxBatchCalls: 40, holdMs: 100 });
    // a head poll refused while nothing else was sent: one call in the last second
    b.rateLimited(null, 1);
    expect(b.callsPerSecond).toBe(40);
    // the first answer 10 s after the hold: ten steps (a tenth of a batch each), not one
    vi.setSystemTime(1_000_000 + 100 + 10_000);
    b.answered();
    expect(b.callsPerSecond).toBe(40 + 10 * 4);
    // and none again within the same second
    b.answered();
    expect(b.callsPerSecond).toBe(80);
  });

  it('without a cap, a 429 sets one from what was being sent', () => {
    const b = budget({ callsPerSecond: 0 });
    expect(b.callsPerSecond).toBeNull();
    b.rateLimited(null, 40);
    expect(b.callsPerSecond).toBe(20);
  });

  describe('lanes: the pipeline first, the background within its patience', () => {
    /** The order in which waiters got through. */
    const order: string[] = [];
    const track = (name: string, wait: Promise<() => void>) => wait.then((release) => (order.push(name), release));
    afterEach(() => {
      order.length = 0;
    });

    it('a slot given back goes to a waiting pipeline request before an earlier background one', async () => {
      const b = budget({ concurrency: 1 });
      const held = await b.acquire(1);
      const background = track('background', b.acquire(1, undefined, 'background'));
      const pipeline = track('pipeline', b.acquire(1, undefined, 'pipeline'));
      held();
      (await pipeline)();
      (await background)();
      expect(order).toEqual(['pipeline', 'background']);
    });

    it('rate goes to the pipeline first while it waits; the background gets what is left', async () => {
      const b = budget({ concurrency: 100, callsPerSecond: 100, maxBatchCalls: 10 });
      // the bucket starts empty: all of these wait for rate, the background ones asked first
      const waits = [
        track('background 1', b.acquire(10, undefined, 'background')),
        track('background 2', b.acquire(10, undefined, 'background')),
        track('pipeline 1', b.acquire(10)),
        track('pipeline 2', b.acquire(10)),
      ];
      for (const release of await Promise.all(waits)) release();
      expect(order).toEqual(['pipeline 1', 'pipeline 2', 'background 1', 'background 2']);
    });

    it('a background request waiting past its patience goes before the pipeline that keeps the budget busy', async () => {
      const b = budget({ concurrency: 100, callsPerSecond: 100, maxBatchCalls: 10, backgroundMaxWaitMs: 300 });
      const background = track('background', b.acquire(10, undefined, 'background'));
      // the pipeline asks for more than the rate gives, for a second
      const pipeline: Array<Promise<() => void>> = [];
      for (let i = 0; i < 10; i++) pipeline.push(track(`pipeline ${i}`, b.acquire(10)));
      for (const release of await Promise.all([background, ...pipeline])) release();
      const at = order.indexOf('background');
      // 10 calls every 0.1 s: past 0.3 s of waiting, it went third or fourth, not last
      expect(at, order.join(', ')).toBeGreaterThan(0);
      expect(at).toBeLessThan(6);
    });

    it('a background request waiting for rate holds no slot: the pipeline gets in line past it', async () => {
      const b = budget({ concurrency: 2, callsPerSecond: 100, maxBatchCalls: 10 });
      // the bucket starts empty: both wait for rate, and with slots first they would hold both
      const background = [track('background 1', b.acquire(10, undefined, 'background')), track('background 2', b.acquire(10, undefined, 'background'))];
      await new Promise((r) => setTimeout(r, 20));
      const pipeline = track('pipeline', b.acquire(10));
      (await pipeline)();
      expect(order).toEqual(['pipeline']);
      for (const release of await Promise.all(background)) release();
      expect(order).toEqual(['pipeline', 'background 1', 'background 2']);
    });

    it('an aborted first waiter for rate does not hold up the next one (its wake-up is planned again)', async () => {
      const b = budget({ concurrency: 10, callsPerSecond: 10, maxBatchCalls: 40 });
      const controller = new AbortController();
      const big = b.acquire(40, controller.signal);
      const small = b.acquire(1);
      await new Promise((r) => setTimeout(r, 200));
      const started = Date.now();
      controller.abort(new Error('stop'));
      await expect(big).rejects.toThrow('stop');
      (await small)();
      // its one call's worth had dripped in long before: not the 4 s the big one needed
      expect(Date.now() - started).toBeLessThan(500);
    });

    it('an aborted background wait leaves both queues', async () => {
      const b = budget({ concurrency: 1 });
      const held = await b.acquire(1);
      const controller = new AbortController();
      const waiting = b.acquire(1, controller.signal, 'background');
      controller.abort(new Error('stop'));
      await expect(waiting).rejects.toThrow('stop');
      held();
      (await b.acquire(1))();
    });
  });
});
