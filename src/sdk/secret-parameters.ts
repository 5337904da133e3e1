/**
 * The query parameters that carry secrets on the wire of this server and the hosted API: the
 * API key and the restricted-access secret. Their values never go into a log line or an
 * error message; the server's request log and the SDK's error URLs both redact by this list.
 */
export const SECRET_PARAMETERS: ReadonlySet<string> = new Set(['apikey', 'key']);
