import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { fromHexText, toBytea } from '../hex.js';

/** chainId 0 restricts the address on every chain. */
export async function addRestrictedAddress(db: Queryable, address: Hex, chainId = 0): Promise<void> {
  await db.query('INSERT INTO restricted_addresses (chain_id, address) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
    chainId,
    toBytea(address),
  ]);
}

export async function removeRestrictedAddress(db: Queryable, address: Hex, chainId = 0): Promise<boolean> {
  const rows = await db.query('DELETE FROM restricted_addresses WHERE chain_id = $1 AND address = $2 RETURNING 1', [
    chainId,
    toBytea(address),
  ]);
  return rows.length > 0;
}

export async function listRestrictedAddresses(db: Queryable): Promise<{ chainId: number; address: Hex }[]> {
  const rows = await db.query<{ chain_id: string; address: string }>(
    "SELECT chain_id::text, encode(address, 'hex') AS address FROM restricted_addresses r ORDER BY r.chain_id, r.address",
  );
  return rows.map((r) => ({ chainId: Number(r.chain_id), address: fromHexText(r.address) }));
}
