import type { FastifyInstance } from 'fastify';
import { alternatedP50s } from './alternated.js';
import type { phaseRecorder } from './phases.js';
import type { quietGates } from './results.js';
import { median, round } from './stats.js';

const CURSOR_COUNTS = [1, 10, 100] as const;

/**
 * deep_over_top sets the top page, one page asked over and over, against deep targets that
 * cycle through up to 100 pages: a working set of one page's index and address entries against
 * a hundred's. This asks each deep target through its first 1, 10 and 100 cursors, alternated
 * request by request with the top page, so what the ratio owes to the depth (our work per page)
 * and what to the working set (the CPU's caches) show apart. Per run the worst deep target over
 * the top page; medians over runs.
 */
export async function deepOverTopByWorkingSet(
  app: FastifyInstance,
  phases: ReturnType<typeof phaseRecorder>,
  top: readonly string[],
  deep: ReadonlyArray<{ name: string; paths: readonly string[] }>,
  quiet: ReturnType<typeof quietGates>,
  counts: { runs: number; samples: number },
  log: (m: string) => void,
) {
  const perRun: Array<Record<string, number>> = [];
  for (let run = 1; run <= counts.runs; run++) {
    await quiet.before(`deep over top by working set, run ${run}`);
    const ratios: Record<string, number> = {};
    for (const n of CURSOR_COUNTS) {
      const [topP50, ...deepP50s] = await alternatedP50s(app, phases, [top, ...deep.map((t) => t.paths.slice(0, n))], counts.samples);
      ratios[`cursors_${n}`] = Math.max(...deepP50s) / topP50!;
      log(`deep over top, run ${run}, ${n} cursor(s) per deep target: top p50 ${topP50} ms, deep ${deepP50s.join(' / ')} ms, ratio ${round(ratios[`cursors_${n}`]!, 2)}`);
    }
    perRun.push(ratios);
  }
  return {
    ...Object.fromEntries(CURSOR_COUNTS.map((n) => [`cursors_${n}`, round(median(perRun.map((r) => r[`cursors_${n}`]!)), 2)])),
    note: 'worst deep holders target p50 over the top page p50, each deep target through its first 1, 10 or 100 cursors, alternated with the top page request by request; medians over runs',
  };
}
