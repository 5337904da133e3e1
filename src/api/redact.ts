import { stdSerializers } from 'pino';
import { SECRET_PARAMETERS } from '../sdk/secret-parameters.js';
import { HoldersQuery } from './schemas/holders.js';
import { BlocksValidatedQuery } from './schemas/blocks.js';
import { EtherscanQuerySchema } from './routes/etherscan/route.js';

/**
 * The parameters whose values may appear in a log line: those our routes document, less the
 * secret ones. Any other name, and its value, is redacted too: a client that misspells or
 * re-encodes `apikey` (`%61pikey`, `apikey[]`, `api_key`…) still sent a key.
 */
const PUBLIC_PARAMETERS: ReadonlySet<string> = new Set(
  [HoldersQuery, BlocksValidatedQuery, EtherscanQuerySchema]
    .flatMap((schema) => Object.keys(schema.properties))
    .filter((name) => !SECRET_PARAMETERS.has(name)),
);

const REDACTED = '[redacted]';
// A log line stays short whatever the request: the path and values are cut beyond these.
const MAX_PATH = 300;
const MAX_VALUE = 100;

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

type ParsedQuery = Record<string, unknown>;

/** The query as the server parsed it; for a raw request (no parsed query) the URL is parsed the same way. */
function parsedQuery(request: { url?: string; query?: unknown }, rawQuery: string): ParsedQuery {
  if (request.query && typeof request.query === 'object') return request.query as ParsedQuery;
  const parsed: Record<string, string[]> = {};
  for (const [name, value] of new URLSearchParams(rawQuery)) (parsed[name] ??= []).push(value);
  return parsed;
}

function parameter(name: string, value: unknown, paths: LoggedPaths): string {
  if (SECRET_PARAMETERS.has(name)) return `${name}=${REDACTED}`;
  if (!PUBLIC_PARAMETERS.has(name)) return `${REDACTED}=${REDACTED}`;
  const values = Array.isArray(value) ? value : [value];
  return values.map((v) => `${name}=${paths.value(String(v)) ? encodeURIComponent(cut(String(v), MAX_VALUE)) : REDACTED}`).join('&');
}

/** A path segment that may be an address, a hash or a number, and so may be logged as it is. */
const VALUE_SEGMENT = /^(0x[0-9a-fA-F]{0,128}|[0-9]{1,20})$/;
/**
 * A public parameter's value that may be logged as it is: shaped like an address, a hash or a
 * number, or a lowercase word (`module=token`, `sort=desc`, `tag=latest`). Anything else (a key
 * pasted into `items_count` or `address_hash`) is redacted: our generated keys mix cases and
 * digits, and an operator's own key of that shape is a configured secret, redacted by name.
 */
const VALUE_PARAMETER = /^(0x[0-9a-fA-F]{0,128}|[0-9]{1,20}|[a-z]{1,32})$/;

/**
 * What a logged path keeps of its segments: the routes' own words (`api`, `tokens`, `holders`…)
 * and values shaped like an address, a hash or a number that are not one of the operator's
 * secrets. Anything else is redacted: a client that sends its key in the path (pasted into a
 * segment, or after a percent-encoded `?`, `/v2/api%3Fapikey=…`) still sent a key.
 */
export class LoggedPaths {
  private readonly words = new Set<string>();

  constructor(private readonly secrets: ReadonlySet<string> = new Set()) {}

  /** Learns a route's literal segments (Fastify's onRoute). */
  addRoute(url: string): void {
    for (const segment of url.split('/')) if (segment !== '' && !/[:*]/.test(segment)) this.words.add(segment);
  }

  path(path: string): string {
    const segments = cut(path, MAX_PATH).split('/');
    return segments.map((s) => (s === '' || this.words.has(s) || (VALUE_SEGMENT.test(s) && !this.secrets.has(s)) ? s : REDACTED)).join('/');
  }

  /** Whether a public query parameter's value may be logged as it is. */
  value(value: string): boolean {
    return VALUE_PARAMETER.test(value) && !this.secrets.has(value);
  }
}

/**
 * The request's URL for a log line, built from the parsed query rather than by pattern on the
 * raw text: names are decoded before they are judged, so no encoding of a secret's name lets
 * its value through. The path, and the public parameters' values, keep what `paths` allows.
 */
export function loggedUrl(request: { url?: string; query?: unknown }, paths: LoggedPaths): string {
  const url = request.url ?? '';
  const q = url.indexOf('?');
  const path = paths.path(q === -1 ? url : url.slice(0, q));
  if (q === -1) return path;
  const query = parsedQuery(request, url.slice(q + 1));
  const parts = Object.entries(query).map(([name, value]) => parameter(name, value, paths));
  return parts.length === 0 ? path : `${path}?${parts.join('&')}`;
}

/**
 * pino serializers for the API's logger: whatever logs `{ req }` (Fastify itself on a 5xx from
 * its default handler, a plugin, our code) gets the redacted URL and no headers; an error keeps
 * its message and stack but not `rawPacket`, the raw bytes Node attaches to a malformed
 * request (its headers, keys included).
 */
export const logSerializers = (paths: LoggedPaths) => ({
  req: (request: { method?: string; url?: string; query?: unknown; ip?: string }) => ({
    method: request.method,
    url: loggedUrl(request, paths),
    remoteAddress: request.ip,
  }),
  err: (error: Error) => {
    const serialized = stdSerializers.err(error) as unknown as Record<string, unknown>;
    delete serialized.rawPacket;
    return serialized;
  },
});
