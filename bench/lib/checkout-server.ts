/**
 * One checkout's API server, page cache off (or PAGE_CACHE_MS), in a process of its own (child of
 * bench/uncached-ab.ts): its modules are imported from that checkout's src/, so two versions of
 * the code serve the same database side by side. Prints `{ port, pid }` once listening.
 *
 *   node --import tsx bench/lib/checkout-server.ts <checkout dir> <database url>
 */
import { resolve } from 'node:path';

const [checkout, databaseUrl] = process.argv.slice(2);
if (!checkout || !databaseUrl) throw new Error('usage: checkout-server.ts <checkout dir> <database url>');
const root = resolve(checkout);
const { buildServer } = (await import(`${root}/src/api/server.js`)) as typeof import('../../src/api/server.js');
const { openDatabase } = (await import(`${root}/src/db/client.js`)) as typeof import('../../src/db/client.js');
const { apiConfig } = (await import(`${root}/test/support/api.js`)) as typeof import('../../test/support/api.js');
const db = await openDatabase({ databaseUrl });
// PAGE_CACHE_MS: the same comparison with the page cache on (a repeated page from memory)
const app = await buildServer({ db, api: apiConfig({ pageCacheMs: Number(process.env['PAGE_CACHE_MS'] ?? 0) }) });
await app.listen({ host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ port: (app.server.address() as { port: number }).port, pid: process.pid }));
// a clean exit, so a --cpu-prof profile is written
process.once('SIGTERM', () => void app.close().then(() => db.close()).finally(() => process.exit(0)));
