import { setMaxListeners } from 'node:events';

/**
 * The signal a call runs under: the client's own (stopping it ends every call) combined with the
 * caller's. The batcher groups calls by their signal, so a caller's signal maps to one combined
 * signal, not one per call: calls that share a signal still travel in one batch.
 */
export function signalCombiner(own: AbortSignal | undefined): (caller: AbortSignal | undefined) => AbortSignal | undefined {
  const combined = new WeakMap<AbortSignal, AbortSignal>();
  return (caller) => {
    if (!own || !caller || own === caller) return own ?? caller;
    let both = combined.get(caller);
    if (!both) {
      combined.set(caller, (both = AbortSignal.any([own, caller])));
      // every call under the caller's signal listens on this one (the fetch stage: hundreds)
      setMaxListeners(0, both);
    }
    return both;
  };
}
