import { describe, expect, it } from 'vitest';
import { ENTRY_OVERHEAD_BYTES, PageStore } from './page-store.js';
import { heldBytes as heap } from '../../test/support/heap.js';

describe('PageStore', () => {
  // Its budget is only as true as its count: what the entries hold in the heap and in buffers
  // must not exceed what the store counts for them, for short and long keys and bodies.
  it.each([
    [10, 10],
    [260, 10],
    [10, 2_000],
    [260, 20_000],
  ])('counts at least the memory its entries hold (key %i chars, body %i bytes)', (keyLength, bodyLength) => {
    const store = new PageStore(600_000, Number.MAX_SAFE_INTEGER);
    const n = 20_000;
    const body = 'b'.repeat(bodyLength);
    const before = heap();
    for (let i = 0; i < n; i++) store.set(1, 1n, `${String(i).padStart(keyLength, 'k')}`, body, 0);
    const held = heap() - before;
    const { entries, bytes } = store.stats();
    expect(entries).toBe(n);
    console.log(`key ${keyLength}, body ${bodyLength}: ${(held / n).toFixed(0)} bytes held per entry, ${(bytes / n).toFixed(0)} counted`);
    expect(held).toBeLessThanOrEqual(bytes);
    expect(store.get(1, 1n, String(7).padStart(keyLength, 'k'), 1)?.toString()).toBe(body);
  });

  it('never holds more than its budget, oldest out first, over chains', () => {
    const entrySize = ENTRY_OVERHEAD_BYTES + 2 * 4 + 4;
    const store = new PageStore(600_000, 10 * entrySize);
    for (let i = 0; i < 30; i++) store.set(i % 3, 1n, `k${String(i).padStart(3, '0')}`, 'body', i);
    expect(store.stats()).toEqual({ entries: 10, bytes: 10 * entrySize });
    expect(store.get(0, 1n, 'k000', 30)).toBeUndefined();
    expect(store.get(2, 1n, 'k029', 30)?.toString()).toBe('body');
    expect(store.get(2, 1n, 'k020', 30)?.toString()).toBe('body');
    expect(store.get(1, 1n, 'k019', 30)).toBeUndefined();
  });

  it('an entry larger than the whole budget is not kept', () => {
    const store = new PageStore(600_000, 2_000);
    store.set(1, 1n, 'big', 'x'.repeat(2_000), 0);
    expect(store.stats()).toEqual({ entries: 0, bytes: 0 });
  });
});
