// A backfill batch on PostgreSQL is written as parts, each a group of its tokens in a
// transaction of its own on its own connection, and then the batch's blocks and progress in one
// more (indexer/write-parts.ts): one backend bounded the write (BENCHMARKS.md). A crash between
// those commits leaves some parts ahead of `chains.indexed_block`; each part's row here says which
// batch it last committed, so the next start writes that batch again for the others only.
// The block's hash tells whether the node still has that batch when the indexer comes back.
export const sql = /* sql */ `
CREATE TABLE token_parts (
  chain_id integer NOT NULL,
  part smallint NOT NULL,
  block_number bigint NOT NULL,
  block_hash bytea NOT NULL,
  PRIMARY KEY (chain_id, part)
);
`;
