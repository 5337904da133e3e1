/**
 * A fault that fails everything alike (a database or a Redis away) is said once per `intervalMs`,
 * not once per request or reconnection attempt: `due()` is true when a line is due, and
 * `since()` is how many were held back before it. `reset()` makes the next one due at once.
 */
export function logThrottle(intervalMs: number) {
  let saidAt = Number.NEGATIVE_INFINITY;
  let held = 0;
  return {
    due(now = Date.now()): boolean {
      if (now - saidAt < intervalMs) {
        held++;
        return false;
      }
      saidAt = now;
      return true;
    },
    /** the lines held back since the last one said, counted again from 0 */
    since(): number {
      const n = held;
      held = 0;
      return n;
    },
    /** whether anything was said since the last reset */
    get said(): boolean {
      return saidAt !== Number.NEGATIVE_INFINITY;
    },
    reset(): void {
      saidAt = Number.NEGATIVE_INFINITY;
      held = 0;
    },
  };
}
