/** A closed-loop load generator: `connections` loops each sending the next request as soon as the last answered. */
export interface LoadResult {
  requests: number;
  errors: number;
  statuses: Record<number, number>;
  p50: number;
  p99: number;
  perSecond: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function runLoad(urls: readonly string[], options: { connections: number; durationMs: number; headers?: Record<string, string> }): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  const deadline = Date.now() + options.durationMs;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: options.connections }, async (_, c) => {
      for (let i = c; Date.now() < deadline; i++) {
        const t0 = performance.now();
        try {
          const res = await fetch(urls[i % urls.length]!, { headers: options.headers ?? {} });
          await res.arrayBuffer();
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          if (res.status !== 200) errors++;
        } catch {
          errors++;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    statuses,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    perSecond: latencies.length / ((Date.now() - started) / 1000),
  };
}
