import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { toBytea } from '../hex.js';

/**
 * What an API key keeps for itself: private tags (`tag`) and watchlist entries (`watchlist`),
 * at most one of each per address, on every chain (an address is the same account on each).
 * `owner` is the key's id; every statement here is scoped by it, so a key never reads, changes
 * or learns the ids of another's entries.
 */
export type AccountKind = 'tag' | 'watchlist';

export interface AccountEntry {
  id: number;
  address: Hex;
  name: string;
}

interface EntryColumns {
  id: string;
  address: string;
  name: string;
}

const toEntry = (r: EntryColumns): AccountEntry => ({ id: Number(r.id), address: `0x${r.address}` as Hex, name: r.name });

/** Newest first, strictly before `beforeId`. */
export async function listAccountEntries(
  db: Queryable,
  owner: string,
  kind: AccountKind,
  beforeId: number | null,
  limit: number,
): Promise<AccountEntry[]> {
  const rows = await db.query<EntryColumns>(
    // (ORDER BY a.id: a bare `id` would be the text output column, sorted as text)
    `SELECT a.id::text AS id, encode(a.address, 'hex') AS address, a.name FROM account_addresses a
     WHERE a.owner = $1 AND a.kind = $2 AND ($3::bigint IS NULL OR a.id < $3) ORDER BY a.id DESC LIMIT $4`,
    [owner, kind, beforeId, limit],
  );
  return rows.map(toEntry);
}

export type WriteResult = { ok: true; entry: AccountEntry } | { ok: false; reason: 'duplicate' | 'full' | 'missing' };

/**
 * Adds an entry unless the key has one for the address already or has `max` of this kind. One
 * statement: the count and the insert cannot be split by a concurrent request of the same key
 * beyond the unique constraint (two racing inserts may both pass the count; `max` is a guard
 * against abuse, not an exact quota).
 */
export async function addAccountEntry(db: Queryable, owner: string, kind: AccountKind, address: Hex, name: string, max: number): Promise<WriteResult> {
  const rows = await db.query<EntryColumns & { full: boolean }>(
    `WITH n AS (SELECT count(*) AS n FROM account_addresses WHERE owner = $1 AND kind = $2)
     INSERT INTO account_addresses (owner, kind, address, name)
     SELECT $1, $2, $3, $4 FROM n WHERE n.n < $5
     ON CONFLICT ON CONSTRAINT account_addresses_key DO NOTHING
     RETURNING id::text, encode(address, 'hex') AS address, name`,
    [owner, kind, toBytea(address), name, max],
  );
  if (rows[0]) return { ok: true, entry: toEntry(rows[0]) };
  const count = await db.query<{ n: string }>('SELECT count(*)::text AS n FROM account_addresses WHERE owner = $1 AND kind = $2', [owner, kind]);
  return { ok: false, reason: Number(count[0]!.n) >= max ? 'full' : 'duplicate' };
}

export async function updateAccountEntry(db: Queryable, owner: string, kind: AccountKind, id: number, address: Hex, name: string): Promise<WriteResult> {
  try {
    const rows = await db.query<EntryColumns>(
      `UPDATE account_addresses SET address = $4, name = $5 WHERE owner = $1 AND kind = $2 AND id = $3
       RETURNING id::text, encode(address, 'hex') AS address, name`,
      [owner, kind, id, toBytea(address), name],
    );
    return rows[0] ? { ok: true, entry: toEntry(rows[0]) } : { ok: false, reason: 'missing' };
  } catch (error) {
    if ((error as { code?: string }).code === '23505') return { ok: false, reason: 'duplicate' };
    throw error;
  }
}

export async function deleteAccountEntry(db: Queryable, owner: string, kind: AccountKind, id: number): Promise<boolean> {
  const rows = await db.query('DELETE FROM account_addresses WHERE owner = $1 AND kind = $2 AND id = $3 RETURNING 1', [owner, kind, id]);
  return rows.length > 0;
}

export async function hasAccountEntries(db: Queryable, owner: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM account_addresses WHERE owner = $1 LIMIT 1', [owner], { prepare: true });
  return rows.length > 0;
}

/** The key's private tag and watchlist name of each of these addresses that has one. */
export async function privateNames(db: Queryable, owner: string, addresses: readonly Hex[]): Promise<Map<Hex, { tag?: string; watchlist?: string }>> {
  const rows = await db.query<{ address: string; kind: AccountKind; name: string }>(
    `SELECT encode(address, 'hex') AS address, kind, name FROM account_addresses
     WHERE owner = $1 AND address IN (SELECT decode(h, 'hex') FROM unnest($2::text[]) h)`,
    [owner, addresses.map((a) => a.slice(2).toLowerCase())],
    { prepare: true },
  );
  const names = new Map<Hex, { tag?: string; watchlist?: string }>();
  for (const r of rows) {
    const address = `0x${r.address}` as Hex;
    const entry = names.get(address) ?? {};
    entry[r.kind === 'tag' ? 'tag' : 'watchlist'] = r.name;
    names.set(address, entry);
  }
  return names;
}
