import { logThrottle } from '../log-throttle.js';
import { isDatabaseFault } from '../db/unavailable.js';
import type { Logger } from './logger.js';

/** How often a failure that keeps coming back (a full disk, a node down) is said again. */
const REMINDER_MS = 60_000;

/**
 * The log of a loop that retries a failing step (the pipeline, the enrichment): a fault that
 * lasts (a full disk, a database or node away for hours) is said once in full, then once a
 * minute with the count of failures since, and its end is said too, where every retry used to
 * write a line (~1 a second on a full disk: outside review, 2026-11-27). A failure of another
 * cause is said at once.
 */
export class FailureLog {
  private failing: { since: number; count: number; cause: string } | null = null;
  private readonly reminder = logThrottle(REMINDER_MS);

  constructor(
    private readonly logger: Logger,
    private readonly fields: Record<string, unknown>,
    private readonly level: 'error' | 'warn',
    private readonly messages: {
      /** what failed and what happens next, e.g. "indexing step failed; retrying from the last committed block" */
      failed: string;
      recovered: string;
    },
  ) {}

  failed(error: unknown): void {
    const cause = error instanceof Error ? error.message : String(error);
    const now = Date.now();
    const again = this.failing?.cause === cause;
    if (!again) {
      this.failing = { since: this.failing?.since ?? now, count: (this.failing?.count ?? 0) + 1, cause };
      this.reminder.reset();
    } else {
      this.failing!.count++;
    }
    if (!this.reminder.due(now)) return;
    const held = this.reminder.since();
    const repeated = again ? { failuresSince: new Date(this.failing!.since).toISOString(), failures: this.failing!.count, notLogged: held } : {};
    this.logger[this.level]({ ...this.fields, err: cause, database: isDatabaseFault(error), ...repeated }, again ? `${this.messages.failed} (still failing)` : this.messages.failed);
  }

  /** After a step that went through: says the end of a run of failures. */
  succeeded(): void {
    if (this.failing === null) return;
    const { since, count } = this.failing;
    this.failing = null;
    this.reminder.reset();
    this.logger.info({ ...this.fields, failures: count, seconds: Math.round((Date.now() - since) / 1000) }, this.messages.recovered);
  }
}
