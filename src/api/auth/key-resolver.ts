import { ConfigError } from '../../config/config.js';
import type { Queryable } from '../../db/client.js';
import { findActiveApiKey, hashApiKey } from '../../db/queries/api-keys.js';
import { isWellFormedKey } from './key-format.js';
import { API_KEY_FORMAT_TEXT } from '../limits.js';

export interface ResolvedKey {
  /** stable id for rate limiting and ownership (account entries); never the key itself */
  id: string;
  /**
   * What a log line calls it: the id, less a static key's digest prefix (32 bits of an unsalted
   * SHA-256 in every line would let whoever reads the logs test guesses of a short key offline).
   */
  logged: string;
  rateLimit: number | null;
}

/**
 * What this process knows of a key digest without asking the database:
 * - a `ResolvedKey`: valid, answered within `ttlMs` (or a key from the environment);
 * - `known`: valid when last asked, longer ago than `ttlMs`: ask again (a revocation shows);
 * - `asking`: the database is being asked about it already: wait for that answer;
 * - `invalid`: not a key when asked within `missTtlMs`;
 * - `unknown`: never seen, or forgotten. Only these may be anyone's guess: the caller limits
 *   them per client address before `lookup` asks the database.
 */
export type KeyState = ResolvedKey | 'known' | 'asking' | 'invalid' | 'unknown';

export interface KeyResolverOptions {
  /** how long a valid key is trusted without asking again: the documented revocation delay */
  ttlMs?: number;
  missTtlMs?: number;
  /** bounds of the two caches, in digests */
  maxValid?: number;
  maxInvalid?: number;
}

interface Valid {
  key: ResolvedKey;
  expires: number;
}

/**
 * Turns a key digest into its record with at most one database round trip per `ttlMs`. Valid
 * and invalid digests live in two separate bounded maps (oldest out first), so a flood of
 * wrong keys only ever pushes out other wrong keys. Both are keyed by the SHA-256 digest: a
 * presented key, whatever its length, costs 64 characters here and is not kept in clear.
 */
export class KeyResolver {
  private readonly valid = new Map<string, Valid>();
  private readonly invalid = new Map<string, number>();
  private readonly staticKeys: Map<string, ResolvedKey>;
  /** one database question per digest at a time, however many requests carry it */
  private readonly pending = new Map<string, Promise<ResolvedKey | null>>();
  private readonly ttlMs: number;
  private readonly missTtlMs: number;
  private readonly maxValid: number;
  private readonly maxInvalid: number;

  constructor(
    private readonly db: Queryable,
    staticKeys: readonly string[],
    options: KeyResolverOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 5_000;
    this.missTtlMs = options.missTtlMs ?? 1_000;
    this.maxValid = options.maxValid ?? 10_000;
    this.maxInvalid = options.maxInvalid ?? 10_000;
    this.staticKeys = new Map(
      staticKeys.map((key, i) => {
        // the message names the entry, never the key
        if (!isWellFormedKey(key)) throw new ConfigError(`EXPLORER_API_KEYS: entry ${i + 1} is not a valid key (${API_KEY_FORMAT_TEXT})`);
        const digest = hashApiKey(key);
        return [digest, { id: `env:${i}:${digest.slice(0, 8)}`, logged: `env:${i}`, rateLimit: null }];
      }),
    );
  }

  /** No I/O: what the caches say about this digest. */
  state(digest: string, now = Date.now()): KeyState {
    const fromEnv = this.staticKeys.get(digest);
    if (fromEnv) return fromEnv;
    const valid = this.valid.get(digest);
    if (valid && valid.expires > now) return valid.key;
    if (this.pending.has(digest)) return 'asking';
    if (valid) return 'known';
    const invalidUntil = this.invalid.get(digest);
    if (invalidUntil !== undefined) {
      if (invalidUntil > now) return 'invalid';
      this.invalid.delete(digest);
    }
    return 'unknown';
  }

  /**
   * Asks the database, once per digest at a time: requests carrying a digest already being
   * asked about wait for that answer. `before` runs first, inside the same single question
   * (the caller's per-address limit: a burst of one new key pays for one question, not one per
   * request); if it throws, every waiting request gets its error.
   */
  lookup(digest: string, before?: () => Promise<void>): Promise<ResolvedKey | null> {
    let answer = this.pending.get(digest);
    if (!answer) {
      answer = (async () => {
        if (before) await before();
        return this.ask(digest);
      })().finally(() => this.pending.delete(digest));
      this.pending.set(digest, answer);
    }
    return answer;
  }

  private async ask(digest: string): Promise<ResolvedKey | null> {
    // the clock is read before the question: a key revoked meanwhile is trusted at most ttlMs
    // from the moment the database could have answered with it
    const asked = Date.now();
    const record = await findActiveApiKey(this.db, digest);
    this.valid.delete(digest);
    this.invalid.delete(digest);
    if (!record) {
      remember(this.invalid, digest, asked + this.missTtlMs, this.maxInvalid);
      return null;
    }
    const key = { id: `db:${record.id}`, logged: `db:${record.id}`, rateLimit: record.rateLimit };
    remember(this.valid, digest, { key, expires: asked + this.ttlMs }, this.maxValid);
    return key;
  }
}

/** Insertion order is age: the oldest entry leaves first when the map is full. */
function remember<V>(map: Map<string, V>, digest: string, value: V, max: number): void {
  if (map.size >= max) map.delete(map.keys().next().value as string);
  map.set(digest, value);
}

/**
 * The key from `apikey` (repeated, or in several letter cases on the Etherscan-style routes),
 * `x-api-key` or `Authorization: Bearer`. The same key sent in several of these is that key;
 * two different keys are no key (null), whichever would have come first.
 */
export function presentedKey(query: unknown, headers: Record<string, string | string[] | undefined>): string | null {
  let key: string | null = null;
  let conflict = false;
  const add = (value: unknown) => {
    if (typeof value !== 'string' || value.length === 0) return;
    if (key === null) key = value;
    else if (key !== value) conflict = true;
  };
  const fromQuery = (query as Record<string, unknown> | undefined)?.apikey;
  if (Array.isArray(fromQuery)) for (const value of fromQuery) add(value);
  else add(fromQuery);
  add(headers['x-api-key']);
  const auth = headers.authorization;
  if (typeof auth === 'string') add(/^Bearer\s+(\S+)\s*$/i.exec(auth)?.[1]);
  return conflict ? null : key;
}
