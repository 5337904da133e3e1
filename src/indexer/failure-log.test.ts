import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FailureLog } from './failure-log.js';

function recorder() {
  const lines: Array<{ level: string; msg: string | undefined; obj: Record<string, unknown> }> = [];
  const at = (level: string) => (obj: Record<string, unknown>, msg?: string) => void lines.push({ level, msg, obj });
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

describe('FailureLog', () => {
  beforeEach(() => vi.useFakeTimers({ now: Date.parse('2026-11-27T00:00:00Z') }));
  afterEach(() => vi.useRealTimers());

  it('a lasting fault: said once, then once a minute with the count, then its end', () => {
    const { lines, logger } = recorder();
    const log = new FailureLog(logger, { chainId: 1 }, 'error', { failed: 'step failed; retrying', recovered: 'recovered' });
    const full = new Error('could not extend file: No space left on device');
    for (let i = 0; i < 30; i++) {
      log.failed(full);
      vi.advanceTimersByTime(2_000); // a retry every 2 s: 60 s in all
    }
    log.failed(full);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      ['error', 'step failed; retrying'],
      ['error', 'step failed; retrying (still failing)'],
    ]);
    expect(lines[0]!.obj).toEqual({ chainId: 1, err: full.message, database: false });
    expect(lines[1]!.obj).toMatchObject({ failures: 31, notLogged: 29, failuresSince: '2026-11-27T00:00:00.000Z' });
    vi.advanceTimersByTime(5_000);
    log.succeeded();
    log.succeeded();
    expect(lines.slice(2)).toEqual([{ level: 'info', msg: 'recovered', obj: { chainId: 1, failures: 31, seconds: 65 } }]);
  });

  it('another cause is said at once; a new run of failures after a recovery is said in full again', () => {
    const { lines, logger } = recorder();
    const log = new FailureLog(logger, {}, 'warn', { failed: 'round failed', recovered: 'recovered' });
    log.failed(new Error('a'));
    log.failed(new Error('a'));
    log.failed(new Error('b'));
    log.succeeded();
    log.failed(new Error('b'));
    expect(lines.map((l) => [l.level, l.msg, l.obj.err ?? l.obj.failures])).toEqual([
      ['warn', 'round failed', 'a'],
      ['warn', 'round failed', 'b'],
      ['info', 'recovered', 3],
      ['warn', 'round failed', 'b'],
    ]);
  });
});
