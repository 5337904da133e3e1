import { performance } from 'node:perf_hooks';

/**
 * `produce`, called at most once per `maxAgeMs`: callers within that time share its promise
 * (answers served without a key, `/health` and `/metrics`, cost one render a second whatever
 * the traffic). A failed render is not kept: the next caller renders again.
 */
export function renderedAtMostEvery<T>(maxAgeMs: number, produce: () => Promise<T>): () => Promise<T> {
  let rendered: { at: number; value: Promise<T> } | null = null;
  return () => {
    const now = performance.now();
    if (rendered === null || now - rendered.at >= maxAgeMs) {
      const value = produce();
      rendered = { at: now, value };
      value.catch(() => (rendered = null));
    }
    return rendered.value;
  };
}
