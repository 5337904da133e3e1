// Pages decorated each row with addresses.tags (jsonb, a generic array of tag rows) and turned it
// into the address object's `metadata` and `public_tags` on every request: the driver parsed it,
// the view filtered and mapped it, the serializer wrote it again. A holders page whose rows all
// carry tags took 1.8x the time of a plain one. addresses.tags_json keeps those two members as
// the wire JSON itself (written by db/queries/write-addresses.ts tagsJsonSql, whose text this
// backfill repeats as it was at this migration, with a null address_hash the view fills in),
// and pages splice it in.
export const sql = /* sql */ `
ALTER TABLE addresses ADD COLUMN tags_json text;
UPDATE addresses a SET tags_json = r.tags_json
FROM (
  SELECT t.chain_id, t.address,
    '"metadata":' || coalesce('{"tags":[' || string_agg('{"name":' || to_json(t.name)::text
      || ',"slug":' || to_json(t.slug)::text || ',"ordinal":' || t.ordinal || ',"tagType":' || to_json(t.tag_type)::text
      || ',"meta":' || t.meta::text || '}', ',' ORDER BY t.ordinal, t.slug) FILTER (WHERE t.kind = 'metadata') || ']}', 'null')
    || ',"public_tags":[' || coalesce(string_agg('{"address_hash":null,"display_name":' || to_json(t.name)::text
      || ',"label":' || to_json(t.slug)::text || '}', ',' ORDER BY t.ordinal, t.slug) FILTER (WHERE t.kind = 'public'), '') || ']' AS tags_json
  FROM address_tags t
  GROUP BY t.chain_id, t.address
) r
WHERE a.chain_id = r.chain_id AND a.hash = r.address;
ALTER TABLE addresses DROP COLUMN tags;
`;
