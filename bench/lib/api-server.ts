/**
 * One API server in a process of its own, for bench:api's throughput rounds: the code as
 * `explorer serve` runs it (compiled JavaScript under plain node, bundled by worker-bundle.ts),
 * not the sources through tsx, whose transform cost a cached page hit ~15 % more Node CPU
 * (165 against 144 µs, alternated, 2026-11-29; BENCHMARKS.md). Prints `{ port, pid }` once
 * listening; SIGTERM closes it (and writes a --cpu-prof profile).
 *
 *   node api-server.mjs <database url> <ApiConfig as JSON>
 */
import { buildServer } from '../../src/api/server.js';
import type { ApiConfig } from '../../src/config/config.js';
import { openDatabase } from '../../src/db/client.js';

const [databaseUrl, config] = process.argv.slice(2);
if (!databaseUrl || !config) throw new Error('usage: api-server.mjs <database url> <ApiConfig as JSON>');
const db = await openDatabase({ databaseUrl });
const app = await buildServer({ db, api: JSON.parse(config) as ApiConfig });
await app.listen({ host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ port: (app.server.address() as { port: number }).port, pid: process.pid }));
process.once('SIGTERM', () => void app.close().then(() => db.close()).finally(() => process.exit(0)));
