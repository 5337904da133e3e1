// Hashes are bytea (20 or 32 bytes: half the size of hex text, and byte order equals the
// reference's address ordering); uint256 amounts are numeric(78,0).
export const sql = /* sql */ `
CREATE TABLE chains (
  chain_id        bigint PRIMARY KEY,
  elasticity      integer NOT NULL DEFAULT 2,
  indexed_block   bigint,
  head_block      bigint,
  updated_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE blocks (
  chain_id                    bigint NOT NULL,
  hash                        bytea NOT NULL,
  number                      bigint NOT NULL,
  parent_hash                 bytea NOT NULL,
  nonce                       bytea NOT NULL,
  timestamp                   bigint NOT NULL,
  miner                       bytea NOT NULL,
  size                        bigint NOT NULL,
  difficulty                  numeric(78,0) NOT NULL,
  total_difficulty            numeric(78,0),
  gas_limit                   numeric(78,0) NOT NULL,
  gas_used                    numeric(78,0) NOT NULL,
  base_fee_per_gas            numeric(78,0),
  burnt_fees                  numeric(78,0) NOT NULL,
  priority_fee                numeric(78,0) NOT NULL,
  transaction_fees            numeric(78,0) NOT NULL,
  transactions_count          integer NOT NULL,
  internal_transactions_count integer,
  withdrawals_count           integer,
  rewards                     jsonb NOT NULL DEFAULT '[]',
  uncle_hashes                jsonb NOT NULL DEFAULT '[]',
  consensus                   boolean NOT NULL DEFAULT true,
  is_uncle                    boolean NOT NULL DEFAULT false,
  arbitrum                    jsonb,
  PRIMARY KEY (chain_id, hash)
);
-- blocks-validated: one range scan per page, newest first
CREATE INDEX blocks_by_miner ON blocks (chain_id, miner, number DESC);
-- at most one consensus block per height; also the head follower's parent lookups
CREATE UNIQUE INDEX blocks_consensus_number ON blocks (chain_id, number) WHERE consensus;

CREATE TABLE tokens (
  chain_id      bigint NOT NULL,
  address       bytea NOT NULL,
  type          text NOT NULL CHECK (type IN ('ERC-20', 'ERC-721', 'ERC-1155')),
  name          text,
  symbol        text,
  decimals      integer,
  total_supply  numeric(78,0),
  holder_count  bigint NOT NULL DEFAULT 0,
  is_rebasing   boolean NOT NULL DEFAULT false,
  PRIMARY KEY (chain_id, address)
);

CREATE TABLE token_balances (
  chain_id      bigint NOT NULL,
  token         bytea NOT NULL,
  holder        bytea NOT NULL,
  token_id      numeric(78,0),
  value         numeric(78,0) NOT NULL,
  block_number  bigint NOT NULL,
  CONSTRAINT token_balances_key UNIQUE NULLS NOT DISTINCT (chain_id, token, holder, token_id)
);
-- holders: one range scan per page at any depth; zero balances and the burn address never
-- enter the index, so the page query needs no filter step
CREATE INDEX token_balances_page ON token_balances (chain_id, token, value DESC, holder DESC, token_id DESC)
  WHERE value > 0 AND holder <> '\\x0000000000000000000000000000000000000000'::bytea;

CREATE TABLE addresses (
  chain_id         bigint NOT NULL,
  hash             bytea NOT NULL,
  is_contract      boolean NOT NULL DEFAULT false,
  proxy_type       text,
  implementations  jsonb NOT NULL DEFAULT '[]',
  name             text,
  is_verified      boolean NOT NULL DEFAULT false,
  ens_domain_name  text,
  is_scam          boolean NOT NULL DEFAULT false,
  checked_at       timestamptz,
  PRIMARY KEY (chain_id, hash)
);

CREATE TABLE address_tags (
  chain_id      bigint NOT NULL,
  address       bytea NOT NULL,
  kind          text NOT NULL CHECK (kind IN ('public', 'metadata')),
  slug          text NOT NULL,
  name          text NOT NULL,
  tag_type      text NOT NULL DEFAULT 'generic',
  ordinal       integer NOT NULL DEFAULT 0,
  meta          jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (chain_id, address, kind, slug)
);

CREATE TABLE api_keys (
  id          bigserial PRIMARY KEY,
  name        text NOT NULL,
  key_hash    text NOT NULL UNIQUE,
  prefix      text NOT NULL,
  rate_limit  integer,
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);

-- chain_id 0 means every chain
CREATE TABLE restricted_addresses (
  chain_id  bigint NOT NULL DEFAULT 0,
  address   bytea NOT NULL,
  PRIMARY KEY (chain_id, address)
);
`;
