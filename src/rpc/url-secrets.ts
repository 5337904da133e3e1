/**
 * What of a URL may be a secret. A provider's key sits in an RPC URL's path (`/v3/<key>`), its
 * query (`?apikey=`) or its credentials, and some providers echo it back in error messages
 * ("quota exceeded for key …"); a database's or Redis's URL holds a password. URLs themselves
 * are only ever shown as their origin (./redact-url.ts); these take their secrets out of other
 * text: what a node sends (json-rpc-http.ts, json-rpc-ws.ts) and every log line (cli/runtime.ts).
 */

const MASK = '***';

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A URL's `user:password`, decoded, as a Basic header carries it (null: no credentials). */
export function credentialPair(parsed: URL): string | null {
  return parsed.username || parsed.password ? `${decode(parsed.username)}:${decode(parsed.password)}` : null;
}

/** The password, and the user:password pair as given and as a Basic header carries it. */
function credentialsOf(parsed: URL): string[] {
  const pair = credentialPair(parsed);
  return pair === null ? [] : [decode(parsed.password), pair, Buffer.from(pair).toString('base64')];
}

/**
 * A path segment that looks like a key rather than a word of the path (`v3`, `rpc`, `mainnet`):
 * long, or holding a digit. A query value is taken whatever it is (`?apikey=`, `?token=`).
 */
const keyLike = (segment: string) => segment.length >= 12 || (segment.length >= 6 && /\d/.test(segment));

/** An RPC URL's possible secrets: key-like path segments, query values, credentials. */
export function rpcUrlSecrets(url: string): string[] {
  const parsed = parse(url);
  if (parsed === null) return [];
  const path = parsed.pathname.split('/').map(decode).filter(keyLike);
  return [...path, ...parsed.searchParams.values(), ...credentialsOf(parsed)];
}

/** A database's or Redis's URL: only its credentials are secret (its user and database name are words logs use). */
export function serviceUrlSecrets(url: string): string[] {
  const parsed = parse(url);
  return parsed === null ? [] : credentialsOf(parsed);
}

/** Parts shorter than this mask too much to be worth it, and are no secret worth the name. */
const MIN_SECRET_LENGTH = 4;

/** A function that masks `secrets` in a text, each also as URL-encoded and as a JSON string holds it. */
export function maskerOf(secrets: Iterable<string>): (text: string) => string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    forms.add(secret).add(encodeURIComponent(secret)).add(JSON.stringify(secret).slice(1, -1));
  }
  if (forms.size === 0) return (text) => text;
  // longest first, so a secret containing another is masked whole
  const alternatives = [...forms].sort((a, b) => b.length - a.length).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const pattern = new RegExp(alternatives.join('|'), 'g');
  return (text) => text.replace(pattern, MASK);
}

/**
 * A JSON-RPC answer (one, or a batch) with the strings of its error objects masked; results are
 * left as they are: they are data, and a short key could well occur in a hex string.
 */
export function maskAnswerErrors(data: unknown, mask: (text: string) => string): unknown {
  if (Array.isArray(data)) return data.map((item) => maskAnswerErrors(item, mask));
  if (typeof data !== 'object' || data === null) return data;
  const error = (data as Record<string, unknown>)['error'];
  if (error === undefined) return data;
  return { ...data, error: maskStrings(error, mask) };
}

function maskStrings(value: unknown, mask: (text: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return mask(value);
  if (depth > 8 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => maskStrings(v, mask, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskStrings(v, mask, depth + 1)]));
}
