// What the operator says about addresses (labels: name, scam flag; their tags stay in
// address_tags) and what each API key keeps for itself (private tags, watchlist). Pages read
// the operator's part from the addresses row (label_name, is_scam, tags: one primary-key probe
// per row, as for tags since 004); the per-key part is read only for keys that have any.
export const sql = /* sql */ `
CREATE TABLE address_labels (
  chain_id    bigint NOT NULL,
  address     bytea NOT NULL,
  name        text,
  is_scam     boolean NOT NULL DEFAULT false,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain_id, address)
);
ALTER TABLE addresses ADD COLUMN label_name text;

-- owner: the API key's id (db:<id>, or env:<n>:<digest prefix> for a key of EXPLORER_API_KEYS)
CREATE TABLE account_addresses (
  id          bigserial PRIMARY KEY,
  owner       text NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('tag', 'watchlist')),
  address     bytea NOT NULL,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT account_addresses_key UNIQUE (owner, address, kind)
);
CREATE INDEX account_addresses_list ON account_addresses (owner, kind, id DESC);
`;
