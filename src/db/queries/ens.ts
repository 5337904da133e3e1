import { namehash } from 'viem';
import { normalize } from 'viem/ens';
import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { hexArray, toBytea } from '../hex.js';
import { reverseNodeOf, type EnsEvent, type EnsEventKind, type ReverseNode } from '../../evm/ens-events.js';

/**
 * ENS primary names, worked out from the stored events inside the indexer's transactions
 * (a batch's write, a reorg's rollback): no RPC call, here or on the request path.
 * An address's primary name is its reverse node's name, as its resolver (the registry's latest
 * NewResolver for that node) last set it, kept only if the name is normalised and resolves
 * forward (the registry's resolver of the name's node, its latest AddrChanged) to the address.
 */

export async function writeEnsEvents(tx: Queryable, chainId: number, events: readonly EnsEvent[], reverse: readonly ReverseNode[]): Promise<void> {
  if (events.length > 0) {
    await tx.query(
      `INSERT INTO ens_events (chain_id, block_number, log_index, kind, emitter, node, value)
       SELECT $1, u.b, u.i, u.k, decode(u.e, 'hex'), decode(u.n, 'hex'), u.v
       FROM unnest($2::bigint[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[]) AS u(b, i, k, e, n, v)
       ON CONFLICT (chain_id, block_number, log_index) DO UPDATE SET kind = excluded.kind, emitter = excluded.emitter,
         node = excluded.node, value = excluded.value`,
      [
        chainId,
        events.map((e) => e.blockNumber.toString()),
        events.map((e) => e.logIndex),
        events.map((e) => e.kind),
        hexArray(events.map((e) => e.emitter)),
        hexArray(events.map((e) => e.node)),
        events.map((e) => e.value),
      ],
    );
  }
  if (reverse.length > 0) {
    await tx.query(
      `INSERT INTO ens_reverse_nodes (chain_id, node, address)
       SELECT $1, decode(u.n, 'hex'), decode(u.a, 'hex') FROM unnest($2::text[], $3::text[]) AS u(n, a)
       ON CONFLICT (chain_id, node) DO NOTHING`,
      [chainId, hexArray(reverse.map((r) => r.node)), hexArray(reverse.map((r) => r.address))],
    );
  }
}

/** Deletes the events of blocks above `ancestor` (orphaned by a reorg); the nodes they touched. */
export async function dropEnsEventsAbove(tx: Queryable, chainId: number, ancestor: bigint): Promise<Hex[]> {
  const rows = await tx.query<{ node: string }>(
    `DELETE FROM ens_events WHERE chain_id = $1 AND block_number > $2 RETURNING encode(node, 'hex') AS node`,
    [chainId, ancestor.toString()],
  );
  return [...new Set(rows.map((r) => `0x${r.node}` as Hex))];
}

/** Works out again the primary names of the addresses whose reverse or forward side is one of `nodes`. */
export async function refreshPrimaryNames(tx: Queryable, chainId: number, registry: Hex, nodes: readonly Hex[]): Promise<void> {
  if (nodes.length === 0) return;
  const affected = await tx.query<{ address: string }>(
    `SELECT encode(address, 'hex') AS address FROM ens_reverse_nodes
       WHERE chain_id = $1 AND node IN (SELECT decode(n, 'hex') FROM unnest($2::text[]) n)
     UNION
     SELECT encode(address, 'hex') FROM ens_claims
       WHERE chain_id = $1 AND forward_node IN (SELECT decode(n, 'hex') FROM unnest($2::text[]) n)`,
    [chainId, hexArray(nodes)],
  );
  for (const { address } of affected) await refreshPrimaryName(tx, chainId, registry, `0x${address}` as Hex);
}

async function latest(tx: Queryable, chainId: number, node: Hex, kind: EnsEventKind, emitter: string): Promise<string | null> {
  const rows = await tx.query<{ value: string }>(
    `SELECT value FROM ens_events WHERE chain_id = $1 AND node = $2 AND kind = $3 AND emitter = $4
     ORDER BY block_number DESC, log_index DESC LIMIT 1`,
    [chainId, toBytea(node), kind, toBytea(emitter)],
  );
  return rows[0]?.value ?? null;
}

/** The node of a name as ENS hashes it, or null for a name that is not normalised (never shown). */
function forwardNode(name: string): Hex | null {
  try {
    return normalize(name) === name ? namehash(name) : null;
  } catch {
    return null;
  }
}

async function refreshPrimaryName(tx: Queryable, chainId: number, registry: Hex, address: Hex): Promise<void> {
  const reverseNode = reverseNodeOf(address);
  const reverseResolver = await latest(tx, chainId, reverseNode, 'resolver', registry);
  const name = reverseResolver === null ? null : await latest(tx, chainId, reverseNode, 'name', reverseResolver);
  let shown: string | null = null;
  let node: Hex | null = null;
  if (name) {
    node = forwardNode(name);
    const resolver = node === null ? null : await latest(tx, chainId, node, 'resolver', registry);
    const target = resolver === null ? null : await latest(tx, chainId, node!, 'addr', resolver);
    if (target === address) shown = name;
  }
  if (name) {
    await tx.query(
      `INSERT INTO ens_claims (chain_id, address, name, forward_node) VALUES ($1, $2, $3, $4)
       ON CONFLICT (chain_id, address) DO UPDATE SET name = excluded.name, forward_node = excluded.forward_node`,
      [chainId, toBytea(address), name, node === null ? null : toBytea(node)],
    );
  } else {
    await tx.query('DELETE FROM ens_claims WHERE chain_id = $1 AND address = $2', [chainId, toBytea(address)]);
  }
  // an address known only by its name gets a row (the enrichment then looks at it like any other)
  await tx.query(
    `INSERT INTO addresses (chain_id, hash, ens_domain_name) VALUES ($1, $2, $3)
     ON CONFLICT (chain_id, hash) DO UPDATE SET ens_domain_name = excluded.ens_domain_name`,
    [chainId, toBytea(address), shown],
  );
}
