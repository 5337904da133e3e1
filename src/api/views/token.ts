import type { Hex } from '../../db/rows.js';
import type { TokenSummary } from '../../db/queries/holders.js';
import type { TokenObject } from '../schemas/tokens.js';
import { checksum } from './checksum.js';

/** The token object (schemas/tokens.ts): `GET /tokens/{hash}` and an address page's `token`. */
export function tokenView(address: Hex, token: Omit<TokenSummary, 'transfersCount'>): TokenObject {
  const hash = checksum(address);
  const holders = token.holderCount.toString();
  return {
    address: hash,
    address_hash: hash,
    circulating_market_cap: null,
    decimals: token.decimals === null ? null : String(token.decimals),
    exchange_rate: null,
    holders,
    holders_count: holders,
    icon_url: null,
    name: token.name,
    symbol: token.symbol,
    total_supply: token.totalSupply === null ? null : token.totalSupply.toString(),
    type: token.type,
    volume_24h: null,
  };
}
