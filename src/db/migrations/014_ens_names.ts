// ENS primary names from events (issue 11): the events that decide them, kept with their block
// so a reorg deletes those of orphaned blocks and the names are worked out again; the reverse
// nodes seen, by address; and each address's current claim (its reverse name and that name's
// node, to find it again when the name's forward record changes). The name shown is copied to
// addresses.ens_domain_name, which pages read.
export const sql = /* sql */ `
CREATE TABLE ens_events (
  chain_id      bigint NOT NULL,
  block_number  bigint NOT NULL,
  log_index     integer NOT NULL,
  kind          text NOT NULL CHECK (kind IN ('resolver', 'name', 'addr')),
  emitter       bytea NOT NULL,
  node          bytea NOT NULL,
  value         text NOT NULL,
  PRIMARY KEY (chain_id, block_number, log_index)
);
CREATE INDEX ens_events_latest ON ens_events (chain_id, node, kind, emitter, block_number DESC, log_index DESC);

CREATE TABLE ens_reverse_nodes (
  chain_id  bigint NOT NULL,
  node      bytea NOT NULL,
  address   bytea NOT NULL,
  PRIMARY KEY (chain_id, node)
);

CREATE TABLE ens_claims (
  chain_id      bigint NOT NULL,
  address       bytea NOT NULL,
  name          text NOT NULL,
  forward_node  bytea,
  PRIMARY KEY (chain_id, address)
);
CREATE INDEX ens_claims_forward ON ens_claims (chain_id, forward_node);
`;
