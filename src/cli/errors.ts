import { DatabaseUnavailableError } from '../db/client.js';
import { isDatabaseRefusal } from '../db/unavailable.js';

/** What the node's socket error says, in words. */
const SOCKET_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ETIMEDOUT: 'connection timed out',
  ENOTFOUND: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ECONNRESET: 'connection reset',
};

interface SocketError {
  code?: string;
  address?: string;
  port?: number;
  hostname?: string;
}

/** `host:port: connection refused`, from a socket error or each of an AggregateError's (IPv4 and IPv6 tried). */
function socketProblem(error: unknown): string | null {
  const errors = error instanceof AggregateError ? (error.errors as unknown[]) : [error];
  const parts = errors.flatMap((e) => {
    const s = e as SocketError;
    const what = s.code ? SOCKET_ERRORS[s.code] : undefined;
    if (!what) return [];
    const where = s.address ?? s.hostname;
    return [`${where ? `${where}${s.port ? `:${s.port}` : ''}: ` : ''}${what}`];
  });
  return parts.length > 0 ? [...new Set(parts)].join('; ') : null;
}

/** PostgreSQL's own refusals (database missing, authentication, …) carry a SQLSTATE code. */
const isServerError = (error: unknown): error is Error & { code: string } => isDatabaseRefusal(error);

const firstLine = (text: string) => text.split('\n').find((line) => line.trim() !== '')?.trim() ?? '';

/**
 * One line for the operator: what went wrong, never a stack trace (`--verbose` prints that) and
 * never a connection string (its password): only host and port are named.
 */
export function describeError(error: unknown): string {
  if (error instanceof DatabaseUnavailableError) {
    const cause = error.cause;
    const socket = socketProblem(cause);
    if (socket) return `cannot reach the database: ${socket}`;
    if (isServerError(cause)) return `the database refused: ${firstLine(cause.message)}`;
    return `cannot reach the database: ${firstLine(cause instanceof Error ? cause.message : String(cause)) || 'no answer'}`;
  }
  if (isServerError(error)) return `PostgreSQL: ${firstLine(error.message)} (SQLSTATE ${error.code})`;
  const socket = socketProblem(error);
  if (socket) return socket;
  if (error instanceof Error) return firstLine(error.message) || error.name;
  return String(error);
}

/** The error with its causes, for --verbose. */
export function errorTrace(error: unknown): string {
  const lines: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && depth < 5; depth++) {
    lines.push(depth === 0 ? '' : 'caused by:', e instanceof Error ? (e.stack ?? e.message) : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return lines.filter(Boolean).join('\n');
}
