import { tokenBalance as storedBalance } from '../../../db/queries/token-balance.js';
import { balanceOfAction } from './balance-of.js';
import { TEXT } from './envelope.js';
import { choiceParam } from './params.js';

/** module=account&action=tokenbalance: what the token's balanceOf(address) returns now. */
export const tokenBalance = balanceOfAction({
  action: 'tokenbalance',
  summary: "an address's balance of one token (ERC-20 amount, or ERC-721 count), \"0\" when none",
  parameters: { tag: 'latest (the only one)' },
  async read({ db, chainId, query }, token, holder) {
    choiceParam(query, 'tag', ['latest'] as const, 'latest', TEXT.tag);
    return storedBalance(db, chainId, token, holder);
  },
});
