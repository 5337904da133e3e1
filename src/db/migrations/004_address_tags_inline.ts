// A page decorated each row with two probes, addresses and address_tags (an aggregate per row),
// and the tag probe cost as much as the page scan itself. address_tags stays the table tags
// are written to; addresses.tags is its per-address aggregate, kept by the same writer, so a
// page row needs one primary-key probe. An address known only by its tags gets a row (the
// enrichment then looks at it like any other).
export const sql = /* sql */ `
ALTER TABLE addresses ADD COLUMN tags jsonb;
INSERT INTO addresses (chain_id, hash, tags)
SELECT t.chain_id, t.address,
       jsonb_agg(jsonb_build_object('kind', t.kind, 'slug', t.slug, 'name', t.name, 'tag_type', t.tag_type,
                                    'ordinal', t.ordinal, 'meta', t.meta) ORDER BY t.ordinal, t.slug)
FROM address_tags t
GROUP BY t.chain_id, t.address
ON CONFLICT (chain_id, hash) DO UPDATE SET tags = excluded.tags;
`;
