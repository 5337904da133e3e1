import { sleep } from '../rpc/backoff.js';
import { RequestAbortedError } from '../rpc/errors.js';

/** One answer: right, or what is wrong with it. */
export type Asked<T> = { right: T } | { problem: string };

export interface AskAgainOptions<T> {
  signal?: AbortSignal | undefined;
  /** the pause between asks */
  pollIntervalMs: number;
  /** no further ask starts past this long since the first */
  maxWaitMs: number;
  /** what is asked, for an abort's message: "fetching block 5" */
  what: string;
  /** said before each pause */
  onRetry(attempt: number, problem: string): void;
  /** past `maxWaitMs`: what stands instead (or a throw) */
  giveUp(problem: string, waitedMs: number): T;
}

/**
 * Asks a node until its answer is right: a block it does not have yet, receipts or traces of
 * another block (a reorg between two calls, a load-balanced provider's backend behind) are asked
 * again after a pause, until the wait runs out. One loop for every such answer, so the pause,
 * the give-up and the abort mean the same everywhere.
 */
export async function askUntilRight<T>(ask: (attempt: number) => Promise<Asked<T>>, options: AskAgainOptions<T>): Promise<T> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    const answer = await ask(attempt);
    if ('right' in answer) return answer.right;
    const waited = Date.now() - started;
    if (waited + options.pollIntervalMs > options.maxWaitMs) return options.giveUp(answer.problem, waited);
    options.onRetry(attempt, answer.problem);
    try {
      await sleep(options.pollIntervalMs, options.signal);
    } catch (reason) {
      throw new RequestAbortedError(`${options.what}: aborted`, { cause: reason });
    }
  }
}
