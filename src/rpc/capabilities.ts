/**
 * Once-per-chain feature detection (eth_getBlockReceipts? trace_block or debug tracing?). The
 * answer is cached per RPC client — one client per chain — as a promise, so concurrent callers
 * share one probe. A probe that fails without an answer is forgotten and tried again next time.
 */

const detections = new WeakMap<object, Map<string, Promise<unknown>>>();

export function detectOnce<T>(owner: object, feature: string, probe: () => Promise<T>): Promise<T> {
  let features = detections.get(owner);
  if (!features) {
    features = new Map();
    detections.set(owner, features);
  }
  const known = features.get(feature);
  if (known) return known as Promise<T>;
  const pending = probe();
  features.set(feature, pending);
  pending.catch(() => {
    if (features.get(feature) === pending) features.delete(feature);
  });
  return pending;
}
