import type { ValidationIssue } from './types.js';

/** Any answer other than 200; `url` has the API key redacted so errors can be logged. */
export class ExplorerError extends Error {
  override name = 'ExplorerError';
  constructor(
    readonly status: number,
    message: string,
    readonly url: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

/** No answer at all: the server could not be reached (refused, reset, DNS, TLS); `status` is 0, `cause` the network error. */
export class ConnectionError extends ExplorerError {
  override name = 'ConnectionError';
  constructor(url: string, cause: unknown) {
    super(0, `cannot reach the server: ${describeCause(cause)}`, url, null);
    this.cause = cause;
  }
}

/** fetch's own message is "fetch failed"; what failed is in its cause (ECONNREFUSED, ENOTFOUND…). */
function describeCause(error: unknown): string {
  const inner = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof inner?.code === 'string') return inner.code;
  if (typeof inner?.message === 'string') return inner.message;
  return error instanceof Error ? error.message : String(error);
}

export class UnauthorizedError extends ExplorerError {
  override name = 'UnauthorizedError';
}

export class RestrictedError extends ExplorerError {
  override name = 'RestrictedError';
}

export class NotFoundError extends ExplorerError {
  override name = 'NotFoundError';
}

export class ValidationError extends ExplorerError {
  override name = 'ValidationError';
  constructor(
    status: number,
    message: string,
    url: string,
    body: unknown,
    readonly errors: ValidationIssue[],
  ) {
    super(status, message, url, body);
  }
}

export class RateLimitedError extends ExplorerError {
  override name = 'RateLimitedError';
  constructor(
    status: number,
    message: string,
    url: string,
    body: unknown,
    /** how long the server asked to wait, when it said */
    readonly retryAfterMs: number | null,
  ) {
    super(status, message, url, body);
  }
}

export class ServiceUnavailableError extends ExplorerError {
  override name = 'ServiceUnavailableError';
}

function issuesOf(body: unknown): ValidationIssue[] {
  const errors = (body as { errors?: unknown } | null)?.errors;
  return Array.isArray(errors) ? (errors as ValidationIssue[]) : [];
}

function messageOf(status: number, body: unknown): string {
  const message = (body as { message?: unknown } | null)?.message;
  if (typeof message === 'string') return message;
  const details = issuesOf(body).map((e) => `${e.source?.pointer ?? ''}: ${e.detail}`);
  return details.length > 0 ? details.join('; ') : `HTTP ${status}`;
}

/** The typed error for a non-200 answer. */
export function errorFor(status: number, body: unknown, url: string, retryAfterMs: number | null): ExplorerError {
  const message = messageOf(status, body);
  switch (status) {
    case 401:
      return new UnauthorizedError(status, message, url, body);
    case 403:
      return new RestrictedError(status, message, url, body);
    case 404:
      return new NotFoundError(status, message, url, body);
    case 422:
      return new ValidationError(status, message, url, body, issuesOf(body));
    case 429:
      return new RateLimitedError(status, message, url, body, retryAfterMs);
    case 503:
      return new ServiceUnavailableError(status, message, url, body);
    default:
      return new ExplorerError(status, message, url, body);
  }
}
