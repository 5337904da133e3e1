/**
 * Database round trips per request with the page cache off, for the holders and
 * blocks-validated top pages of a database `npm run bench:api -- --keep` left:
 *
 *   npx tsx bench/statements-per-request.ts <database url>
 *
 * Every statement any pool of the server sends goes through pg.Client#query, so that is where
 * they are counted (issue 14, item 5: one statement per page, nothing else per request).
 */
import pg from 'pg';
import { buildServer } from '../src/api/server.js';
import { openDatabase } from '../src/db/client.js';
import { apiConfig, TEST_KEY } from '../test/support/api.js';

const url = process.argv[2];
if (!url) throw new Error('usage: npx tsx bench/statements-per-request.ts <database url>');
const REQUESTS = 500;

const probe = new pg.Client({ connectionString: url });
await probe.connect();
const token = (await probe.query<{ t: string }>(`SELECT '0x' || encode(token, 'hex') AS t FROM token_balances GROUP BY token ORDER BY count(*) DESC LIMIT 1`)).rows[0]!.t;
const miner = (await probe.query<{ m: string }>(`SELECT '0x' || encode(miner, 'hex') AS m FROM blocks GROUP BY miner ORDER BY count(*) DESC LIMIT 1`)).rows[0]!.m;
await probe.end();

const db = await openDatabase({ databaseUrl: url });
const app = await buildServer({ db, api: apiConfig({ pageCacheMs: 0 }) });
const sent = new Map<string, number>();
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const q = args[0] as string | { text: string };
  const text = (typeof q === 'string' ? q : q.text).replace(/\s+/g, ' ').slice(0, 70);
  sent.set(text, (sent.get(text) ?? 0) + 1);
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;
try {
  for (const path of [`/1/api/v2/tokens/${token}/holders`, `/1/api/v2/addresses/${miner}/blocks-validated`]) {
    // the caches of keys, chains and accounts filled first, as on a running server
    for (let i = 0; i < 5; i++) await app.inject(`${path}?apikey=${TEST_KEY}`);
    sent.clear();
    for (let i = 0; i < REQUESTS; i++) {
      const res = await app.inject(`${path}?apikey=${TEST_KEY}`);
      if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
    const total = [...sent.values()].reduce((a, b) => a + b, 0);
    console.log(`${path.split('/').pop()}: ${(total / REQUESTS).toFixed(3)} statements per request`);
    for (const [text, n] of sent) console.log(`  ${String(n).padStart(5)}  ${text}`);
  }
} finally {
  pg.Client.prototype.query = query;
  await app.close();
  await db.close();
}
