import { DatabaseUnavailableError, StatementTimeoutError } from './client.js';

// Connection-level failures (server down, restarting, out of connections) as opposed to
// errors in a statement: only these become 503s and indexer retries.
const CONNECTION_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EHOSTUNREACH',
  '57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006',
]);
const CONNECTION_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|connection error|Client was closed|PGlite is closed|Cannot use a pool after calling end/i;

export function isConnectionFailure(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  if (error instanceof AggregateError && error.errors.some(isConnectionFailure)) return true;
  return CONNECTION_MESSAGES.test(error.message);
}

/** pg-pool's own timeout: no connection came free in time (the server may be fine). */
export function isPoolExhausted(error: unknown): boolean {
  const cause = error instanceof DatabaseUnavailableError ? error.cause : error;
  return cause instanceof Error && /timeout exceeded when trying to connect/i.test(cause.message);
}

/** An error the database server itself raised (disk full, constraint, permission): it carries a SQLSTATE. */
export function isDatabaseRefusal(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof severity === 'string';
}

/** The database's disk is full (SQLSTATE 53100, or the file system's own words): said as such, where the operator must free space. */
export function isDiskFull(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return code === '53100' || code === 'ENOSPC' || /No space left on device/i.test(error.message) || isDiskFull(error.cause);
}

/** The database's fault, as /health and the indexer's log say it: a lost connection, or a refusal (a full disk, a read-only database). */
export function isDatabaseFault(error: unknown): boolean {
  return isConnectionFailure(error) || isDatabaseRefusal(error);
}

/** 57014 is any cancel; only the timeout's is ours to answer with a 503. */
function isStatementTimeout(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === '57014' && /statement timeout/i.test(error.message);
}

/** Rethrows connection failures as DatabaseUnavailableError (timeouts as StatementTimeoutError), anything else unchanged. */
export async function classifyFailures<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isStatementTimeout(error)) throw new StatementTimeoutError(error);
    throw isConnectionFailure(error) ? new DatabaseUnavailableError(error) : error;
  }
}
