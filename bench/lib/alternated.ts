import type { FastifyInstance } from 'fastify';
import type { phaseRecorder } from './phases.js';
import { summary } from './stats.js';

/**
 * Server-side p50 of each list of request paths, the lists asked in turn request by request
 * (list 0's i-th path, list 1's i-th, …), so the machine's speed drifting over the run hits
 * every list alike and a ratio between them is the code's, not the moment's.
 */
export async function alternatedP50s(
  app: FastifyInstance,
  phases: ReturnType<typeof phaseRecorder>,
  lists: readonly (readonly string[])[],
  samples: number,
): Promise<number[]> {
  const warmup = Math.min(200, samples);
  const total = warmup + samples;
  phases.take();
  for (let i = 0; i < total; i++) {
    for (const paths of lists) {
      const res = await app.inject({ method: 'GET', url: paths[i % paths.length]! });
      if (res.statusCode !== 200) throw new Error(`${paths[0]}: status ${res.statusCode}: ${res.body.slice(0, 200)}`);
    }
  }
  // onResponse hooks may run after inject resolves: let the last one land
  await new Promise((resolve) => setImmediate(resolve));
  const taken = phases.take();
  if (taken.length !== lists.length * total) throw new Error(`${taken.length} timings for ${lists.length * total} requests`);
  return lists.map((_, side) => summary(taken.filter((_, k) => k >= lists.length * warmup && k % lists.length === side).map((s) => s.elapsed)).p50);
}
