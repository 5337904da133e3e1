import { tokenBalance as storedBalance } from '../../../db/queries/token-balance.js';
import { ok, TEXT } from './envelope.js';
import { addressParam, choiceParam } from './params.js';
import type { EtherscanAction } from './action.js';

/** module=account&action=tokenbalance: what the token's balanceOf(address) returns now. */
export const tokenBalance: EtherscanAction = {
  module: 'account',
  action: 'tokenbalance',
  summary: "an address's balance of one token (ERC-20 amount, or ERC-721 count), \"0\" when none",
  parameters: { contractaddress: 'the token', address: 'the holder', tag: 'latest (the only one)' },
  async run({ db, chainId, query }) {
    const token = addressParam(query, 'contractaddress', TEXT.contractAddress);
    const holder = addressParam(query, 'address', TEXT.address);
    choiceParam(query, 'tag', ['latest'] as const, 'latest', TEXT.tag);
    return ok((await storedBalance(db, chainId, token, holder)).toString());
  },
};
