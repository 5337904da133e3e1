/** Exponential backoff with jitter, and an abortable sleep. */

export interface BackoffPolicy {
  /** delay before the first retry */
  baseDelayMs: number;
  /** ceiling for the exponential growth */
  maxDelayMs: number;
  /**
   * Fraction of the delay that is randomised (0 = none, 1 = "full jitter"). Jitter keeps many
   * requests that failed together (one batch, one outage) from retrying in lockstep.
   */
  jitter: number;
}

/** Delay before retry number `attempt` (0-based). */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const exponential = policy.baseDelayMs * 2 ** Math.min(attempt, 30);
  const capped = Math.min(policy.maxDelayMs, exponential);
  const jitter = Math.min(1, Math.max(0, policy.jitter));
  return Math.round(capped * (1 - jitter * random()));
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new Error('aborted'));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `wait`, given up early when `signal` aborts (`wait` itself runs on for whoever else awaits it). */
export function unlessAborted(wait: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return wait;
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason ?? new Error('aborted'));
      return;
    }
    const onAbort = (): void => reject(signal.reason ?? new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    void wait.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
