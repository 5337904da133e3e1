import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Queryable } from '../../db/client.js';
import type { Hex } from '../../db/rows.js';
import { hasAccountEntries, privateNames } from '../../db/queries/account.js';
import type { AddressObject } from '../schemas/address.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** the key whose private tags and watchlist this answer carries; null: none (shared answer) */
    accountOwner: string | null;
    /** the page cache's part for such an answer: the owner and its entries' generation here */
    privateCacheKey: string | null;
  }
  interface FastifyContextConfig {
    /** the route is not about one chain (the account API): no chain scope */
    chainless?: boolean;
  }
}

/**
 * Which keys have private entries at all, per process, asked again after `ttlMs` (so another
 * process's writes show within that) and at once after this process's own writes. Bounded:
 * the oldest answer goes first.
 */
export class AccountIndex {
  private readonly known = new Map<string, { has: boolean; expires: number }>();
  /** per owner, bumped by each of this process's writes: cached pages of an older one are not served */
  private readonly generations = new Map<string, number>();

  constructor(
    private readonly db: Queryable,
    private readonly ttlMs = 2_000,
    private readonly max = 10_000,
  ) {}

  async hasEntries(owner: string, now = Date.now()): Promise<boolean> {
    const known = this.knownNow(owner, now);
    if (known !== undefined) return known;
    const has = await hasAccountEntries(this.db, owner);
    this.known.delete(owner);
    if (this.known.size >= this.max) this.known.delete(this.known.keys().next().value!);
    this.known.set(owner, { has, expires: now + this.ttlMs });
    return has;
  }

  /** The answer hasEntries would give without asking, if it has one that is not expired. */
  knownNow(owner: string, now = Date.now()): boolean | undefined {
    const hit = this.known.get(owner);
    return hit && hit.expires > now ? hit.has : undefined;
  }

  /** After a write of this key's: ask again, and its cached pages are old. */
  forget(owner: string): void {
    this.known.delete(owner);
    this.generations.set(owner, (this.generations.get(owner) ?? 0) + 1);
    if (this.generations.size > this.max) this.generations.delete(this.generations.keys().next().value!);
  }

  generation(owner: string): number {
    return this.generations.get(owner) ?? 0;
  }
}

/** The address objects of an answer: where views put them (page items, their `address`/`miner`, or the answer itself). */
function addressObjects(value: unknown, found: AddressObject[], depth = 0): void {
  if (depth > 4 || typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const v of value) addressObjects(v, found, depth + 1);
    return;
  }
  const record = value as Record<string, unknown>;
  if (Array.isArray(record.watchlist_names) && Array.isArray(record.private_tags) && typeof record.hash === 'string') {
    found.push(record as unknown as AddressObject);
    return;
  }
  for (const key in record) addressObjects(record[key], found, depth + 1);
}

/**
 * Private tags and watchlist names on the address objects of answers to keys that have any:
 * one indexed statement for the whole answer, after the page's own. Keys without entries (most)
 * pay one map lookup and get the shared answer, which holds nothing private. The page cache
 * keys an answer with private data by its key and the generation of its entries
 * (`privateCacheKey`), so no other key is served it and a key's own write shows at once (in
 * another API process: once that process asks again whether the key has entries and what
 * generation they are at, within AccountIndex's 2 s; SaaS review: 1.8–2.0 s).
 * Registered before the page cache's hooks: `accountOwner` is known when the cache is asked.
 */
export function privateAddressData(app: FastifyInstance, db: Queryable, index: AccountIndex): void {
  app.decorateRequest('accountOwner', null);
  app.decorateRequest('privateCacheKey', null);
  const mark = (request: FastifyRequest, id: string, has: boolean) => {
    if (!has) return;
    request.accountOwner = id;
    request.privateCacheKey = `${id}#${index.generation(id)}`;
  };
  // a callback hook, waiting only when the index must ask: it is on the cached page's path
  app.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
    const id = request.apiKey?.id;
    if (id === undefined) return done();
    const known = index.knownNow(id);
    if (known !== undefined) {
      mark(request, id, known);
      return done();
    }
    index.hasEntries(id).then((has) => {
      mark(request, id, has);
      done();
    }, done);
  });
  app.addHook('preSerialization', async (request: FastifyRequest, _reply, payload: unknown) => {
    const owner = request.accountOwner;
    if (owner === null) return payload;
    const objects: AddressObject[] = [];
    addressObjects(payload, objects);
    if (objects.length === 0) return payload;
    const names = await privateNames(db, owner, [...new Set(objects.map((o) => o.hash.toLowerCase() as Hex))]);
    for (const o of objects) {
      const mine = names.get(o.hash.toLowerCase() as Hex);
      if (mine?.tag !== undefined) o.private_tags = [{ address_hash: o.hash, display_name: mine.tag, label: mine.tag }];
      if (mine?.watchlist !== undefined) o.watchlist_names = [{ display_name: mine.watchlist, label: mine.watchlist }];
    }
    return payload;
  });
}
