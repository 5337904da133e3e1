import { heldSupply } from '../../../db/queries/token-supply.js';
import { ok, TEXT } from './envelope.js';
import { addressParam } from './params.js';
import type { EtherscanAction } from './action.js';

/** module=stats&action=tokensupply: the token's supply now, "0" for an address that is no token. */
export const tokenSupply: EtherscanAction = {
  module: 'stats',
  action: 'tokensupply',
  summary: "a token's total supply: its holders' balances added up",
  parameters: { contractaddress: 'the token' },
  async run({ db, chainId, query }) {
    const token = addressParam(query, 'contractaddress', TEXT.contractAddress);
    return ok((await heldSupply(db, chainId, token)).toString());
  },
};
