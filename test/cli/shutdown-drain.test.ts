/**
 * `explorer serve` told to stop by its supervisor (SIGTERM) goes on answering while requests
 * come, says 503 on /health meanwhile, and closes once they stop or at its limit: a load
 * balancer that takes a second to stop sending loses no request (rolling-upgrade review: the
 * listener closed ~190 ms after SIGTERM and 46–153 requests failed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startApiProcess, type ApiProcess } from '../support/api-process.js';

interface Sent {
  at: number;
  status: number | string;
  connection: string | null;
}

/** Requests one after another until `until` says stop; a refused connection is recorded, not thrown. */
async function sendUntil(url: string, until: () => boolean): Promise<Sent[]> {
  const sent: Sent[] = [];
  while (!until()) {
    const at = Date.now();
    try {
      const response = await fetch(`${url}/api/v2/openapi.json`);
      await response.arrayBuffer();
      sent.push({ at, status: response.status, connection: response.headers.get('connection') });
    } catch (error) {
      sent.push({ at, status: String((error as { cause?: { code?: string } }).cause?.code ?? error), connection: null });
    }
  }
  return sent;
}

/** What the process's log says ended its drain. */
const endedBy = (server: ApiProcess) =>
  server
    .output()
    .split('\n')
    .filter((line) => line.includes('"drained: closing the listener"'))
    .map((line) => (JSON.parse(line) as { endedBy: string }).endedBy);

const exited = (server: ApiProcess) =>
  new Promise<{ code: number | null; at: number }>((resolve) => {
    if (server.child.exitCode !== null) return resolve({ code: server.child.exitCode, at: Date.now() });
    server.child.once('exit', (code) => resolve({ code, at: Date.now() }));
  });

describe('explorer serve on SIGTERM', () => {
  const dirs: string[] = [];
  const servers: ApiProcess[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const serve = async (drainMs: number) => {
    const dir = mkdtempSync(join(tmpdir(), 'drain-'));
    dirs.push(dir);
    const server = await startApiProcess({ EXPLORER_DATA_DIR: join(dir, 'data'), EXPLORER_SHUTDOWN_DRAIN_MS: String(drainMs), LOG_LEVEL: 'info' }, [], { captureOutput: true });
    servers.push(server);
    return server;
  };

  it('answers every request while they come, /health 503, then closes a second after the last', async () => {
    const server = await serve(20_000);
    const gone = exited(server);
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    // the signal is handled between requests: once /health says so, every answer is a draining one
    // (an empty database's /health is a 503 too: the reason tells them apart)
    let health: Response;
    let healthBody: { status: string; reasons: string[] };
    do {
      health = await fetch(`${server.url}/health`);
      healthBody = (await health.json()) as typeof healthBody;
    } while (!healthBody.reasons.join(' ').includes('shutting down') && Date.now() - signalled < 10_000);
    const during = await sendUntil(server.url, () => Date.now() - signalled > 2_500);
    const stoppedSending = Date.now();
    const exit = await gone;

    expect(during.length).toBeGreaterThan(5);
    expect(during.filter((s) => s.status !== 200)).toEqual([]);
    // each answer closes its connection: the client's next one is a new connection, which a balancer routes elsewhere
    expect(during.every((s) => s.connection === 'close')).toBe(true);
    expect(health.status).toBe(503);
    expect(healthBody.status).toBe('unavailable');
    expect(healthBody.reasons.join(' ')).toMatch(/shutting down/);
    expect(exit.code).toBe(0);
    // served on past the moment it would have closed without the drain, ended by the quiet, not the limit
    expect(exit.at - signalled).toBeGreaterThan(2_500);
    expect(exit.at - stoppedSending).toBeLessThan(10_000);
    expect(exit.at - stoppedSending).toBeGreaterThanOrEqual(900);
    expect(endedBy(server)).toEqual(['quiet']);
  }, 60_000);

  it('closes at its limit while requests go on coming, and at once on a second signal', async () => {
    const limited = await serve(1_500);
    const gone = exited(limited);
    const signalled = Date.now();
    limited.child.kill('SIGTERM');
    let done = false;
    const sending = sendUntil(limited.url, () => done);
    const exit = await gone;
    done = true;
    const sent = await sending;
    expect(exit.code).toBe(0);
    expect(exit.at - signalled).toBeGreaterThanOrEqual(1_400);
    expect(sent.filter((s) => s.at - signalled < 1_400 && s.status !== 200)).toEqual([]);
    expect(endedBy(limited)).toEqual(['limit']);

    const hurried = await serve(60_000);
    const hurriedGone = exited(hurried);
    hurried.child.kill('SIGTERM');
    // requests keep the drain going (its limit is a minute); the second signal ends it anyway
    let stop = false;
    const keepGoing = sendUntil(hurried.url, () => stop);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(hurried.child.exitCode).toBe(null);
    const second = Date.now();
    hurried.child.kill('SIGTERM');
    const end = await hurriedGone;
    stop = true;
    await keepGoing;
    expect(end.code).toBe(0);
    expect(end.at - second).toBeLessThan(5_000);
    expect(endedBy(hurried)).toEqual(['signal']);
  }, 60_000);
});
