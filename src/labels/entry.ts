import { STORABLE_TEXT } from '../db/text.js';
import { Type, type Static } from '@sinclair/typebox';
import { problem } from '../config/setting.js';
import type { Hex } from '../db/rows.js';
import { ADDRESS_PATTERN } from '../evm/hex.js';

/**
 * One operator label: what `explorer labels import` reads (JSON, CSV), `labels list` prints,
 * and the admin API takes and answers. One entry sets everything the operator says about one
 * address on one chain; importing it again replaces that, so imports are idempotent.
 */
export const LABEL_LIMITS = {
  name: 256,
  tagText: 128,
  tagsPerKind: 32,
  metaKeys: 16,
  metaValue: 1_024,
  /** entries per file or per admin request */
  entries: 100_000,
} as const;

const text = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, pattern: STORABLE_TEXT, ...(description ? { description } : {}) });

export const PublicTagEntry = Type.Object(
  { display_name: text(LABEL_LIMITS.tagText), label: text(LABEL_LIMITS.tagText, 'slug, unique per address') },
  { additionalProperties: false },
);

export const MetadataTagEntry = Type.Object(
  {
    name: text(LABEL_LIMITS.tagText),
    slug: text(LABEL_LIMITS.tagText, 'unique per address'),
    ordinal: Type.Optional(Type.Integer({ minimum: -1_000_000, maximum: 1_000_000, description: 'sort order in metadata.tags (default 0)' })),
    tagType: Type.Optional(text(64, 'e.g. name, generic, protocol (default generic)')),
    meta: Type.Optional(
      Type.Record(Type.String({ maxLength: 64, pattern: STORABLE_TEXT }), Type.String({ maxLength: LABEL_LIMITS.metaValue, pattern: STORABLE_TEXT }), {
        maxProperties: LABEL_LIMITS.metaKeys,
        description: 'free-form strings, e.g. main_entity, tooltipUrl',
      }),
    ),
  },
  { additionalProperties: false },
);

export const LabelEntry = Type.Object(
  {
    chain_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    address: Type.String({ pattern: ADDRESS_PATTERN }),
    name: Type.Optional(Type.Union([Type.Null(), text(LABEL_LIMITS.name)])),
    public_tags: Type.Optional(Type.Array(PublicTagEntry, { maxItems: LABEL_LIMITS.tagsPerKind })),
    metadata_tags: Type.Optional(Type.Array(MetadataTagEntry, { maxItems: LABEL_LIMITS.tagsPerKind })),
    is_scam: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type LabelEntry = Static<typeof LabelEntry>;

export interface MetadataTag {
  name: string;
  slug: string;
  ordinal: number;
  tagType: string;
  meta: Record<string, string>;
}

/** A checked entry, with its defaults filled in and the address lowercased. */
export interface Label {
  chainId: number;
  address: Hex;
  name: string | null;
  isScam: boolean;
  publicTags: { displayName: string; label: string }[];
  metadataTags: MetadataTag[];
}

/** Why `value` is not a label entry, or null. */
export function labelProblem(value: unknown): string | null {
  const why = problem(LabelEntry, value);
  if (why !== null) return why;
  const entry = value as LabelEntry;
  const duplicate = (slugs: string[]) => slugs.find((s, i) => slugs.indexOf(s) !== i);
  const publicDup = duplicate((entry.public_tags ?? []).map((t) => t.label));
  if (publicDup !== undefined) return `public_tags: label "${publicDup}" appears twice`;
  const metaDup = duplicate((entry.metadata_tags ?? []).map((t) => t.slug));
  if (metaDup !== undefined) return `metadata_tags: slug "${metaDup}" appears twice`;
  return null;
}

export function toLabel(entry: LabelEntry): Label {
  return {
    chainId: entry.chain_id,
    address: entry.address.toLowerCase() as Hex,
    name: entry.name ?? null,
    isScam: entry.is_scam ?? false,
    publicTags: (entry.public_tags ?? []).map((t) => ({ displayName: t.display_name, label: t.label })),
    metadataTags: (entry.metadata_tags ?? []).map((t) => ({
      name: t.name,
      slug: t.slug,
      ordinal: t.ordinal ?? 0,
      tagType: t.tagType ?? 'generic',
      meta: t.meta ?? {},
    })),
  };
}

/** The entry form of a stored label: what `labels list` prints and an import takes back. */
export function toEntry(label: Label): LabelEntry {
  return {
    chain_id: label.chainId,
    address: label.address,
    name: label.name,
    public_tags: label.publicTags.map((t) => ({ display_name: t.displayName, label: t.label })),
    metadata_tags: label.metadataTags.map((t) => ({ name: t.name, slug: t.slug, ordinal: t.ordinal, tagType: t.tagType, meta: t.meta })),
    is_scam: label.isScam,
  };
}
