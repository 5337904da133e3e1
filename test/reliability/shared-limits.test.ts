import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { freshDatabase, postgresAvailable, redisAvailable, REDIS_URL } from '../support/databases.js';
import { startApiProcess, type ApiProcess } from '../support/api-process.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { createApiKey, revokeApiKey } from '../../src/db/queries/api-keys.js';
import { addressOf } from '../support/seed.js';
import { assertRevokedWithin } from '../support/revocation.js';

const LIMIT = 10;
const WINDOWS = process.env.RELIABILITY_FULL ? 20 : 5;

// Two real `explorer serve` processes behind one Redis hold one key to its limit, and a key
// revoked in the database stops working on both within seconds.
describe.runIf((await postgresAvailable()) && (await redisAvailable()))('two API processes on one Redis', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let servers: ApiProcess[] = [];
  let key: string;
  const path = `/1/api/v2/addresses/${addressOf(1, 'miner')}/blocks-validated?items_count=1`;

  beforeAll(async () => {
    fresh = await freshDatabase('postgres');
    await ensureChain(fresh.db, 1);
    ({ key } = await createApiKey(fresh.db, 'shared', LIMIT));
    // a namespace of its own so counters left by other runs cannot interfere
    const env = { DATABASE_URL: fresh.url!, REDIS_URL, EXPLORER_RATE_LIMIT: '1000' };
    servers = await Promise.all([startApiProcess(env), startApiProcess(env)]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await fresh?.drop();
  });

  it(`${WINDOWS} one-second windows: one key's budget is shared within 10 %`, async () => {
    let ok = 0;
    let limited = 0;
    for (let w = 0; w < WINDOWS; w++) {
      // a burst of 2 × LIMIT at each server, all inside one window of the key
      const replies = await Promise.all(
        servers.flatMap((s) => Array.from({ length: 2 * LIMIT }, () => fetch(`${s.url}${path}`, { headers: { 'x-api-key': key } }))),
      );
      for (const r of replies) {
        if (r.status === 200) ok++;
        else if (r.status === 429) limited++;
        else throw new Error(`unexpected status ${r.status}`);
        await r.arrayBuffer();
      }
      await new Promise((r) => setTimeout(r, 1_100));
    }
    const expected = WINDOWS * LIMIT;
    console.log(`shared limits: ${WINDOWS} windows, ${ok} accepted (expected ${expected}), ${limited} limited`);
    expect(Math.abs(ok - expected)).toBeLessThanOrEqual(expected * 0.1);
  }, 120_000);

  it('a revoked key stops working on both servers within the documented 5 s', async () => {
    // a key of its own, first used on both servers just before the revocation: the worst case
    const { key: doomed, record } = await createApiKey(fresh.db, 'to-revoke', 1_000);
    const statuses = () =>
      Promise.all(servers.map(async (s) => (await fetch(`${s.url}${path}`, { headers: { 'x-api-key': doomed } })).status));
    expect(await statuses()).toEqual([200, 200]);
    const { lastOkSentMs, refusedAfterMs } = await assertRevokedWithin(5_000, () => revokeApiKey(fresh.db, record.id), statuses);
    console.log(`shared revocation: last 200 to a request sent ${lastOkSentMs} ms after the commit, both refuse from ${refusedAfterMs} ms`);
  }, 30_000);

  it('no key, wrong key: 401 on both', async () => {
    for (const s of servers) {
      expect((await fetch(`${s.url}${path}`)).status).toBe(401);
      expect((await fetch(`${s.url}${path}`, { headers: { 'x-api-key': randomBytes(8).toString('hex') } })).status).toBe(401);
    }
  });
});

