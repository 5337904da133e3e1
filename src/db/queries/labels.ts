import type { Queryable } from '../client.js';
import type { AddressTagRow, Hex } from '../rows.js';
import { hexArray, toBytea } from '../hex.js';
import type { Label } from '../../labels/entry.js';
import { addressesWithChecksums, tagsJsonSql, upsertAddressTags } from './write-addresses.js';

/**
 * Operator labels: address_labels holds the name and scam flag, address_tags the tags (public
 * ones with their list position as ordinal), and the addresses row their copies that pages read
 * (label_name, is_scam, tags_json). Everything here runs inside the caller's transaction.
 */

const pairs = (labels: readonly { chainId: number; address: Hex }[]) => [labels.map((l) => l.chainId), hexArray(labels.map((l) => l.address))];
const IN_PAIRS = `(chain_id, address) IN (SELECT u.c, decode(u.a, 'hex') FROM unnest($1::bigint[], $2::text[]) AS u(c, a))`;

/** Sets each label's address to exactly what its label says (replacing any earlier label). */
export async function applyLabels(tx: Queryable, labels: readonly Label[]): Promise<void> {
  if (labels.length === 0) return;
  await tx.query(
    `INSERT INTO address_labels (chain_id, address, name, is_scam)
     SELECT u.c, decode(u.a, 'hex'), u.name, u.scam FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bool[]) AS u(c, a, name, scam)
     ON CONFLICT (chain_id, address) DO UPDATE SET name = excluded.name, is_scam = excluded.is_scam, updated_at = now()`,
    [...pairs(labels), labels.map((l) => l.name), labels.map((l) => l.isScam)],
  );
  await tx.query(`DELETE FROM address_tags WHERE ${IN_PAIRS}`, pairs(labels));
  const tags = labels.flatMap((l): AddressTagRow[] => [
    ...l.publicTags.map((t, i) => ({ chainId: l.chainId, address: l.address, kind: 'public' as const, name: t.displayName, slug: t.label, ordinal: i, tagType: 'generic', meta: {} })),
    ...l.metadataTags.map((t) => ({ chainId: l.chainId, address: l.address, kind: 'metadata' as const, ...t })),
  ]);
  await upsertAddressTags(tx, tags);
  await refreshAddressRows(tx, labels);
}

/** Removes the labels (name, scam flag, tags) of these addresses; how many had one. */
export async function removeLabels(tx: Queryable, targets: readonly { chainId: number; address: Hex }[]): Promise<number> {
  if (targets.length === 0) return 0;
  const removed = await tx.query(`DELETE FROM address_labels WHERE ${IN_PAIRS} RETURNING 1`, pairs(targets));
  await tx.query(`DELETE FROM address_tags WHERE ${IN_PAIRS}`, pairs(targets));
  await refreshAddressRows(tx, targets);
  return removed.length;
}

/**
 * The addresses rows' copies, from address_labels and address_tags as they now are. An
 * address known only by its label gets a row (the enrichment then looks at it like any other).
 */
async function refreshAddressRows(tx: Queryable, targets: readonly { chainId: number; address: Hex }[]) {
  await tx.query(
    `INSERT INTO addresses (chain_id, hash, label_name, is_scam, tags_json)
     SELECT u.c, decode(u.a, 'hex'), l.name, coalesce(l.is_scam, false),
            (SELECT ${tagsJsonSql('u.cs')} FROM address_tags t WHERE t.chain_id = u.c AND t.address = decode(u.a, 'hex'))
     FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u(c, a, cs)
     LEFT JOIN address_labels l ON l.chain_id = u.c AND l.address = decode(u.a, 'hex')
     ON CONFLICT (chain_id, hash) DO UPDATE SET label_name = excluded.label_name, is_scam = excluded.is_scam, tags_json = excluded.tags_json`,
    addressesWithChecksums(targets),
  );
}

export interface LabelListQuery {
  chainId?: number | undefined;
  address?: Hex | undefined;
  /** strictly after this (chain_id, address), in that order */
  after?: { chainId: number; address: Hex } | undefined;
  limit: number;
}

interface LabelRowColumns {
  chain_id: string;
  address: string;
  name: string | null;
  is_scam: boolean;
  tags: unknown;
}

/** address_tags rows (alias t) → one JSON array of them, as listLabels gives them back. */
const TAGS_AGGREGATE = `jsonb_agg(jsonb_build_object('kind', t.kind, 'slug', t.slug, 'name', t.name, 'tag_type', t.tag_type,
  'ordinal', t.ordinal, 'meta', t.meta) ORDER BY t.ordinal, t.slug)`;

/** Labels in (chain_id, address) order, with their tags, in the form an import takes back. */
export async function listLabels(db: Queryable, q: LabelListQuery): Promise<Label[]> {
  const args: unknown[] = [q.limit];
  const where: string[] = [];
  if (q.chainId !== undefined) where.push(`l.chain_id = $${args.push(q.chainId)}`);
  if (q.address !== undefined) where.push(`l.address = $${args.push(toBytea(q.address))}`);
  if (q.after !== undefined) where.push(`(l.chain_id, l.address) > ($${args.push(q.after.chainId)}::bigint, $${args.push(toBytea(q.after.address))}::bytea)`);
  const rows = await db.query<LabelRowColumns>(
    `SELECT l.chain_id::text, encode(l.address, 'hex') AS address, l.name, l.is_scam,
            (SELECT ${TAGS_AGGREGATE} FROM address_tags t WHERE t.chain_id = l.chain_id AND t.address = l.address) AS tags
     FROM address_labels l ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY l.chain_id, l.address LIMIT $1`,
    args,
  );
  return rows.map((r) => {
    const tags = (typeof r.tags === 'string' ? JSON.parse(r.tags) : (r.tags ?? [])) as Array<{ kind: string; slug: string; name: string; tag_type: string; ordinal: number; meta: Record<string, string> }>;
    return {
      chainId: Number(r.chain_id),
      address: `0x${r.address}` as Hex,
      name: r.name,
      isScam: r.is_scam,
      publicTags: tags.filter((t) => t.kind === 'public').map((t) => ({ displayName: t.name, label: t.slug })),
      metadataTags: tags
        .filter((t) => t.kind === 'metadata')
        .map((t) => ({ name: t.name, slug: t.slug, ordinal: t.ordinal, tagType: t.tag_type, meta: t.meta })),
    };
  });
}
