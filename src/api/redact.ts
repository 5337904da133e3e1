/** The URL with the values of `apikey` and `key` replaced, for logs. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:apikey|key)=)[^&#]*/gi, '$1[redacted]');
}
