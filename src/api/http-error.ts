/** An answer with a `{"message": …}` body: 401, 403, 404, 429, 503; `extra` adds fields to it. */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly statusCode: number,
    message: string,
    readonly extra: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

export const notFound = () => new HttpError(404, 'Not found');

/** One entry of a 422 body: the parameter and the reference's text for what is wrong with it. */
export interface InvalidValue {
  param: string;
  detail: string;
}

/**
 * A 422 decided by a route rather than by the schema validator (a value whose rules the
 * validator cannot express with the reference's texts); rendered like a validation failure.
 */
export class InvalidParameterError extends Error {
  override name = 'InvalidParameterError';
  constructor(readonly issues: readonly InvalidValue[]) {
    super(issues.map((i) => `${i.param}: ${i.detail}`).join('; '));
  }
}
