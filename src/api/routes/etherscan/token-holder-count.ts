import { findToken } from '../../../db/queries/holders.js';
import { ok, TEXT } from './envelope.js';
import { addressParam } from './params.js';
import type { EtherscanAction } from './action.js';

/** module=token&action=tokenholdercount: distinct holders; "0" for an address that is no token. */
export const tokenHolderCount: EtherscanAction = {
  module: 'token',
  action: 'tokenholdercount',
  summary: "a token's number of distinct holders",
  parameters: { contractaddress: 'the token' },
  async run({ db, chainId, query }) {
    const token = addressParam(query, 'contractaddress', TEXT.contractAddress);
    const found = await findToken(db, chainId, token);
    return ok((found?.holderCount ?? 0n).toString());
  },
};
