/**
 * Two (or more) versions of the code under the same uncached load, alternated: the holders and
 * blocks-validated top pages, page cache off, at 10 connections (autocannon in its own
 * process), each checkout's server in a process of its own (lib/checkout-server.ts) against
 * one database, a bare Fastify route sending the same bytes measured before them each round,
 * the checkouts' order reversed every other round. What bench:api's throughput_ratio_uncached
 * measures, with the code as the only difference between the sides; and each server's own CPU
 * time per request, which on a shared machine is steadier than req/s. Every checkout must
 * answer the same bytes, or the run stops.
 *
 *   git worktree add /tmp/before <commit> && ln -s "$PWD/node_modules" /tmp/before/node_modules
 *   npm run bench:api -- --holders 200000 --tokens 50 --blocks 20000 --keep     (prints --database <url>)
 *   npx tsx bench/uncached-ab.ts --database <url> [--rounds 6] [--seconds 5] [--cpu-prof] [--out file] /tmp/before .
 *   PAGE_CACHE_MS=1000 npx tsx bench/uncached-ab.ts …     the same with the page cache on (a repeated page from memory)
 */
import { writeFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { CHAIN_ID } from './lib/api-data.js';
import { procCpuMs } from './lib/cpu.js';
import { httpLoad } from './lib/http-load.js';
import { withClient } from './lib/pg-client.js';
import { logger, machineInfo } from './lib/results.js';
import { spawnServer, type ServerProcess } from './lib/server-process.js';
import { median, round } from './lib/stats.js';
import { TEST_KEY } from '../test/support/api.js';

const { values, positionals } = parseArgs({
  options: {
    database: { type: 'string' },
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    'cpu-prof': { type: 'boolean' },
    out: { type: 'string' },
  },
  allowPositionals: true,
});
const log = logger('uncached-ab');
const url = values.database;
if (!url || positionals.length === 0) throw new Error('usage: uncached-ab.ts --database <url> <checkout> [<checkout> …]');
const serverScript = fileURLToPath(new URL('./lib/checkout-server.ts', import.meta.url));

const machine = await machineInfo({ postgresUrl: url });
const paths = await withClient(url, async (c) => {
  const token = (await c.query<{ t: string }>(`SELECT encode(token, 'hex') AS t FROM token_balances GROUP BY token ORDER BY count(*) DESC LIMIT 1`)).rows[0]!.t;
  const miner = (await c.query<{ m: string }>(`SELECT encode(miner, 'hex') AS m FROM blocks WHERE chain_id = $1 GROUP BY miner ORDER BY count(*) DESC LIMIT 1`, [CHAIN_ID])).rows[0]!.m;
  return {
    holders: `/${CHAIN_ID}/api/v2/tokens/0x${token}/holders?apikey=${TEST_KEY}`,
    blocks: `/${CHAIN_ID}/api/v2/addresses/0x${miner}/blocks-validated?apikey=${TEST_KEY}`,
  };
});

const servers: Array<ServerProcess & { name: string; port: number }> = [];
for (const checkout of positionals) {
  const dir = resolve(checkout);
  const prof = values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', resolve('bench/results/profiles', `ab-${basename(dir)}`)] : [];
  // (each checkout's own sources through tsx: a checkout from before lib/api-server.ts has no built entry)
  const server = await spawnServer([...prof, '--import', 'tsx', serverScript, dir, url], { cwd: dir });
  servers.push({ ...server, name: basename(dir), port: Number(new URL(server.base).port) });
}
try {
  const bodies = new Map<string, Buffer>();
  for (const [kind, path] of Object.entries(paths)) {
    const answers = await Promise.all(servers.map(async (s) => Buffer.from(await (await fetch(`http://127.0.0.1:${s.port}${path}`)).arrayBuffer())));
    if (answers.some((a) => !a.equals(answers[0]!))) throw new Error(`${kind}: the checkouts answer different bytes`);
    bodies.set(kind, answers[0]!);
  }
  const bare = Fastify({ logger: false });
  bare.get('/*', (request, reply) => reply.type('application/json; charset=utf-8').send(bodies.get(request.url.includes('/holders') ? 'holders' : 'blocks')));
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const barePort = (bare.server.address() as { port: number }).port;

  const opts = { connections: Number(values.connections), seconds: Number(values.seconds) };
  for (const path of Object.values(paths)) for (const s of servers) await httpLoad(`http://127.0.0.1:${s.port}${path}`, { ...opts, seconds: 1 });
  type Side = { req_s: number; ratio: number; node_cpu_ms_per_request: number };
  const rounds: Array<{ load_average: number[]; bare: Record<string, number>; sides: Record<string, Record<string, Side>> }> = [];
  for (let r = 0; r < Number(values.rounds); r++) {
    const round_: (typeof rounds)[number] = { load_average: (await import('node:os')).loadavg().map((l) => round(l, 2)), bare: {}, sides: {} };
    for (const [kind, path] of Object.entries(paths)) {
      const b = await httpLoad(`http://127.0.0.1:${barePort}${path}`, opts);
      round_.bare[kind] = b.requests_per_s;
      for (const s of r % 2 ? [...servers].reverse() : servers) {
        const before = await procCpuMs(s.pid);
        const u = await httpLoad(`http://127.0.0.1:${s.port}${path}`, opts);
        const side = { req_s: u.requests_per_s, ratio: round(u.requests_per_s / b.requests_per_s), node_cpu_ms_per_request: round(((await procCpuMs(s.pid)) - before) / u.requests_total) };
        (round_.sides[s.name] ??= {})[kind] = side;
        log(`round ${r + 1}: ${kind} ${s.name} ${side.req_s} req/s, bare ${b.requests_per_s}, ratio ${side.ratio}, Node ${side.node_cpu_ms_per_request} ms per request`);
      }
    }
    rounds.push(round_);
  }
  await bare.close();
  const medians = Object.fromEntries(
    servers.map((s) => [
      s.name,
      Object.fromEntries(
        Object.keys(paths).map((kind) => {
          const of = (k: keyof Side) => round(median(rounds.map((r) => r.sides[s.name]![kind]![k])));
          return [kind, { ratio_uncached: of('ratio'), req_s: of('req_s'), node_cpu_ms_per_request: of('node_cpu_ms_per_request') }];
        }),
      ),
    ]),
  );
  log(`medians: ${JSON.stringify(medians)}`);
  const result = { command: `npx tsx bench/uncached-ab.ts ${process.argv.slice(2).join(' ')}`, machine, bytes: Object.fromEntries([...bodies].map(([k, b]) => [k, b.length])), medians, rounds };
  if (values.out) await writeFile(values.out, `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await Promise.all(servers.map((s) => s.stop()));
}
