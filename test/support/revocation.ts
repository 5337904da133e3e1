import { expect } from 'vitest';

/**
 * Revokes the key (whose last answer was read before `revoke` is called) and asks with it
 * every 100 ms until refused. Every 200 must answer a request sent within `withinMs` of the
 * revocation's commit: a server can have cached the key at the latest just before it, so a
 * cache of `withinMs` or less passes, and a longer one (6.5 s against 5 s) answers 200 to
 * requests sent after the bound, whatever the machine's load.
 */
export async function assertRevokedWithin(
  withinMs: number,
  revoke: () => Promise<unknown>,
  statusNow: () => Promise<number[]>,
): Promise<{ lastOkSentMs: number; refusedAfterMs: number }> {
  await revoke();
  const committed = Date.now();
  let lastOkSentMs = -1;
  for (;;) {
    const sent = Date.now();
    const statuses = await statusNow();
    if (statuses.includes(200)) lastOkSentMs = sent - committed;
    if (statuses.every((s) => s === 401)) return { lastOkSentMs, refusedAfterMs: Date.now() - committed };
    expect(statuses.every((s) => s === 200 || s === 401), String(statuses)).toBe(true);
    expect(sent - committed, 'still accepted long after the revocation').toBeLessThan(withinMs + 10_000);
    expect(lastOkSentMs, 'a 200 to a request sent after the documented delay').toBeLessThanOrEqual(withinMs);
    await new Promise((r) => setTimeout(r, 100));
  }
}
