import { holdings, HOLDINGS_PARAMETERS } from './holdings.js';
import type { EtherscanAction } from './action.js';

/** module=account&action=addresstokennftbalance: the ERC-721 collections an address holds, with counts. */
export const addressNftBalance: EtherscanAction = {
  module: 'account',
  action: 'addresstokennftbalance',
  summary: 'the ERC-721 collections an address holds and how many of each, by token address',
  parameters: HOLDINGS_PARAMETERS,
  run: (context) =>
    holdings(context, 'ERC-721', (h) => ({
      TokenAddress: h.token,
      TokenName: h.name ?? '',
      TokenSymbol: h.symbol ?? '',
      TokenQuantity: h.value.toString(),
    })),
};
