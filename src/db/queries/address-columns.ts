import type { Hex } from '../rows.js';

/**
 * What the API shows of an address, joined onto each page row by a LATERAL lookup (one
 * primary-key probe per row, tags included: addresses.tags_json renders address_tags), so a page
 * stays one statement in index order with no sort. The operator's labels (label_name, is_scam)
 * and ENS's primary name are kept on the same row by their writers for that reason. `known` is false when the explorer has no
 * row for the address (neither indexed nor tagged).
 */
export function addressLateralJoin(addressColumn: string, chainParam: string): string {
  return /* sql */ `
  LEFT JOIN LATERAL (
    SELECT a.is_contract, a.proxy_type, a.implementations, a.name, a.is_verified,
           a.ens_domain_name, a.is_scam, a.tags_json, a.label_name
    FROM addresses a WHERE a.chain_id = ${chainParam} AND a.hash = ${addressColumn}
  ) addr ON true`;
}

export const addressSelectColumns = /* sql */ `
  addr.is_contract AS a_is_contract, addr.proxy_type AS a_proxy_type,
  addr.implementations AS a_implementations, addr.name AS a_name,
  addr.is_verified AS a_is_verified, addr.ens_domain_name AS a_ens_domain_name,
  addr.is_scam AS a_is_scam, addr.tags_json AS a_tags_json, addr.label_name AS a_label_name`;

export interface AddressInfo {
  hash: Hex;
  known: boolean;
  isContract: boolean;
  proxyType: string | null;
  implementations: { address_hash: string; name: string | null }[];
  /** the operator's label name, else the token's name */
  name: string | null;
  isVerified: boolean;
  ensDomainName: string | null;
  isScam: boolean;
  /** the address object's `metadata` and `public_tags` members as wire JSON (write-addresses.ts tagsJsonSql); null: none */
  tagsJson: string | null;
}

interface AddressColumns {
  a_is_contract: boolean | null;
  a_proxy_type: string | null;
  a_implementations: unknown;
  a_name: string | null;
  a_is_verified: boolean | null;
  a_ens_domain_name: string | null;
  a_is_scam: boolean | null;
  a_tags_json: string | null;
  a_label_name: string | null;
}

// jsonb arrives parsed from pg and PGlite alike.
function asArray<T>(value: unknown): T[] {
  if (Array.isArray(value)) return value as T[];
  if (typeof value === 'string') return JSON.parse(value) as T[];
  return [];
}

export function readAddress(hash: Hex, row: AddressColumns): AddressInfo {
  const known = row.a_is_contract !== null && row.a_is_contract !== undefined;
  return {
    hash,
    known,
    isContract: row.a_is_contract ?? false,
    proxyType: row.a_proxy_type,
    implementations: asArray(row.a_implementations),
    name: row.a_label_name ?? row.a_name,
    isVerified: row.a_is_verified ?? false,
    ensDomainName: row.a_ens_domain_name,
    isScam: row.a_is_scam ?? false,
    tagsJson: row.a_tags_json,
  };
}

export type AddressRowColumns = AddressColumns;
