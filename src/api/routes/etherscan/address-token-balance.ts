import { holdingsAction } from './holdings.js';
import { NO_PRICE } from './token-info.js';

/** module=account&action=addresstokenbalance: the ERC-20 tokens an address holds, by token address. */
export const addressTokenBalance = holdingsAction({
  action: 'addresstokenbalance',
  summary: 'the ERC-20 tokens an address holds, with their metadata, by token address',
  type: 'ERC-20',
  extra: (h) => ({ TokenDivisor: String(h.decimals ?? 0), TokenPriceUSD: NO_PRICE }),
});
