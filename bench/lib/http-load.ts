import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const autocannonBin = createRequire(import.meta.url).resolve('autocannon');

export interface LoadResult {
  requests_per_s: number;
  requests_total: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  non2xx: number;
  errors: number;
  bytes_per_request: number;
}

/**
 * autocannon in its own process: in ours it would share the event loop with the server it
 * measures. Every answer must be a 200, or the figure would be that of an error path.
 */
export async function httpLoad(url: string, { connections, seconds }: { connections: number; seconds: number }): Promise<LoadResult> {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [autocannonBin, '-c', String(connections), '-d', String(seconds), '-j', url], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`autocannon exited ${code}: ${stderr}`))));
  });
  const r = JSON.parse(out) as {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    throughput: { total: number };
    non2xx: number;
    errors: number;
    timeouts: number;
  };
  const result = {
    requests_per_s: Math.round(r.requests.average),
    requests_total: r.requests.total,
    latency_p50_ms: r.latency.p50,
    latency_p99_ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    bytes_per_request: r.requests.total > 0 ? Math.round(r.throughput.total / r.requests.total) : 0,
  };
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`load on ${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result;
}
