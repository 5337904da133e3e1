import type { Queryable } from '../client.js';
import { getAddress } from 'viem';
import type { AddressRow, AddressTagRow, Hex } from '../rows.js';
import { hexArray } from '../hex.js';

export async function upsertAddresses(db: Queryable, rows: readonly AddressRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO addresses (chain_id, hash, is_contract, proxy_type, implementations, name, is_verified,
       ens_domain_name, is_scam, checked_at)
     SELECT u.chain_id, decode(u.hash, 'hex'), u.is_contract, u.proxy_type, u.implementations::jsonb, u.name,
       u.is_verified, u.ens_domain_name, u.is_scam, now()
     FROM unnest($1::bigint[], $2::text[], $3::bool[], $4::text[], $5::text[], $6::text[], $7::bool[], $8::text[],
       $9::bool[]) AS u(chain_id, hash, is_contract, proxy_type, implementations, name, is_verified,
       ens_domain_name, is_scam)
     ON CONFLICT (chain_id, hash) DO UPDATE SET is_contract = excluded.is_contract,
       proxy_type = excluded.proxy_type, implementations = excluded.implementations,
       name = coalesce(excluded.name, addresses.name), is_verified = excluded.is_verified,
       ens_domain_name = coalesce(excluded.ens_domain_name, addresses.ens_domain_name),
       is_scam = addresses.is_scam OR excluded.is_scam, checked_at = now()`,
    [
      rows.map((r) => r.chainId),
      hexArray(rows.map((r) => r.hash)),
      rows.map((r) => r.isContract),
      rows.map((r) => r.proxyType),
      rows.map((r) => JSON.stringify(r.implementations.map((i) => ({ address_hash: i.address.toLowerCase(), name: i.name })))),
      rows.map((r) => r.name),
      rows.map((r) => r.isVerified),
      rows.map((r) => r.ensDomainName),
      rows.map((r) => r.isScam),
    ],
  );
}

export async function upsertAddressTags(db: Queryable, tags: readonly AddressTagRow[]): Promise<void> {
  if (tags.length === 0) return;
  await db.query(
    `INSERT INTO address_tags (chain_id, address, kind, slug, name, tag_type, ordinal, meta)
     SELECT u.chain_id, decode(u.address, 'hex'), u.kind, u.slug, u.name, u.tag_type, u.ordinal, u.meta::jsonb
     FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[])
       AS u(chain_id, address, kind, slug, name, tag_type, ordinal, meta)
     ON CONFLICT (chain_id, address, kind, slug) DO UPDATE SET name = excluded.name, tag_type = excluded.tag_type,
       ordinal = excluded.ordinal, meta = excluded.meta`,
    [
      tags.map((t) => t.chainId),
      hexArray(tags.map((t) => t.address)),
      tags.map((t) => t.kind),
      tags.map((t) => t.slug),
      tags.map((t) => t.name),
      tags.map((t) => t.tagType),
      tags.map((t) => t.ordinal),
      tags.map((t) => JSON.stringify(t.meta)),
    ],
  );
  await db.query(REBUILD_ADDRESS_TAGS, addressesWithChecksums(tags));
}

/**
 * address_tags rows (alias t) of one address → addresses.tags_json, the address object's
 * `"metadata":…,"public_tags":[…]` members as wire JSON (migration 020). Pages splice it into the
 * answer as it is (api/views/address-json.ts): a labelled row costs no JSON parse or re-render.
 * A public tag's address_hash is the address's checksummed form, which SQL cannot compute: the
 * writer passes it in (`checksum`, an SQL expression of a text); migration 022 rendered again the
 * rows migration 020 had left without it.
 */
export function tagsJsonSql(checksum: string): string {
  return `'"metadata":' || coalesce('{"tags":[' || string_agg('{"name":' || to_json(t.name)::text
    || ',"slug":' || to_json(t.slug)::text || ',"ordinal":' || t.ordinal || ',"tagType":' || to_json(t.tag_type)::text
    || ',"meta":' || t.meta::text || '}', ',' ORDER BY t.ordinal, t.slug) FILTER (WHERE t.kind = 'metadata') || ']}', 'null')
  || ',"public_tags":[' || coalesce(string_agg('{"address_hash":' || to_json(${checksum})::text || ',"display_name":' || to_json(t.name)::text
    || ',"label":' || to_json(t.slug)::text || '}', ',' ORDER BY t.ordinal, t.slug) FILTER (WHERE t.kind = 'public'), '') || ']'`;
}

/** Each (chain, address) once, with the checksummed address tagsJsonSql needs: bulk parameters. */
export function addressesWithChecksums(targets: readonly { chainId: number; address: Hex }[]): [number[], string[], string[]] {
  const unique = new Map(targets.map((t) => [`${t.chainId}:${t.address.toLowerCase()}`, t]));
  const list = [...unique.values()];
  return [list.map((t) => t.chainId), hexArray(list.map((t) => t.address)), list.map((t) => getAddress(t.address.toLowerCase()))];
}

/**
 * Pages read an address's tags from its addresses row: this renders tags_json again from
 * address_tags for the addresses in $1 (chains), $2 (hex), $3 (checksummed), as
 * addressesWithChecksums gives them. A statement of its own after the tag writes, since a
 * statement does not see its own inserts.
 */
export const REBUILD_ADDRESS_TAGS = `INSERT INTO addresses (chain_id, hash, tags_json)
     SELECT t.chain_id, t.address, ${tagsJsonSql('u.checksum')}
     FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u(chain_id, address, checksum)
     JOIN address_tags t ON t.chain_id = u.chain_id AND t.address = decode(u.address, 'hex')
     GROUP BY t.chain_id, t.address, u.checksum
     ON CONFLICT (chain_id, hash) DO UPDATE SET tags_json = excluded.tags_json`;

/** Addresses the enrichment has yet to look at; known ones are left as they are. */
export async function addUncheckedAddresses(db: Queryable, chainId: number, hashes: readonly string[]): Promise<void> {
  if (hashes.length === 0) return;
  await db.query(
    `INSERT INTO addresses (chain_id, hash)
     SELECT $1, decode(h, 'hex') FROM unnest($2::text[]) h
     ON CONFLICT (chain_id, hash) DO NOTHING`,
    [chainId, hexArray(hashes)],
  );
}

/** A batch of addresses never checked, for the enrichment loop. */
export async function uncheckedAddresses(db: Queryable, chainId: number, limit: number): Promise<string[]> {
  const rows = await db.query<{ hash: string }>(
    "SELECT '0x' || encode(hash, 'hex') AS hash FROM addresses WHERE chain_id = $1 AND checked_at IS NULL LIMIT $2",
    [chainId, limit],
  );
  return rows.map((r) => r.hash);
}

/**
 * Marks addresses for the enrichment to look at again (contract, proxy): what it learned may
 * have come from blocks a reorg orphaned (a contract deployed, a proxy upgraded only there).
 */
export async function recheckAddresses(db: Queryable, chainId: number, hashes: readonly string[]): Promise<void> {
  if (hashes.length === 0) return;
  await db.query(
    `UPDATE addresses SET checked_at = NULL
     WHERE chain_id = $1 AND hash = ANY(SELECT decode(h, 'hex') FROM unnest($2::text[]) h) AND checked_at IS NOT NULL`,
    [chainId, hexArray(hashes)],
  );
}
