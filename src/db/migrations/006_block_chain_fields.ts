// A chain kind's extra header fields move from a column of their own (`arbitrum`, which also
// held five settlement fields that are not header data) into `chain_fields`, one jsonb object
// keyed by kind: a new chain kind adds no column. Settlement data gets tables of its own.
export const sql = /* sql */ `
ALTER TABLE blocks RENAME COLUMN arbitrum TO chain_fields;
UPDATE blocks
SET chain_fields = jsonb_build_object('arbitrum', jsonb_build_object(
  'delayed_messages', chain_fields->'delayed_messages',
  'l1_block_number', chain_fields->'l1_block_number',
  'send_count', chain_fields->'send_count',
  'send_root', chain_fields->'send_root'))
WHERE chain_fields IS NOT NULL;
`;
