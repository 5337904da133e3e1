import { holdingsAction } from './holdings.js';

/** module=account&action=addresstokennftbalance: the ERC-721 collections an address holds, with counts. */
export const addressNftBalance = holdingsAction({
  action: 'addresstokennftbalance',
  summary: 'the ERC-721 collections an address holds and how many of each, by token address',
  type: 'ERC-721',
  extra: () => ({}),
});
