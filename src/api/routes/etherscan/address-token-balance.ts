import { holdings, HOLDINGS_PARAMETERS } from './holdings.js';
import { NO_PRICE } from './token-info.js';
import type { EtherscanAction } from './action.js';

/** module=account&action=addresstokenbalance: the ERC-20 tokens an address holds, by token address. */
export const addressTokenBalance: EtherscanAction = {
  module: 'account',
  action: 'addresstokenbalance',
  summary: 'the ERC-20 tokens an address holds, with their metadata, by token address',
  parameters: HOLDINGS_PARAMETERS,
  run: (context) =>
    holdings(context, 'ERC-20', (h) => ({
      TokenAddress: h.token,
      TokenName: h.name ?? '',
      TokenSymbol: h.symbol ?? '',
      TokenQuantity: h.value.toString(),
      TokenDivisor: String(h.decimals ?? 0),
      TokenPriceUSD: NO_PRICE,
    })),
};
