/** An answer with a `{"message": …}` body: 401, 403, 404, 429, 503. */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

export const notFound = () => new HttpError(404, 'Not found');
