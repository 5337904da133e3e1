import { balanceAt } from '../../../db/queries/balance-history.js';
import { balanceOfAction } from './balance-of.js';
import { TEXT } from './envelope.js';
import { integerParam } from './params.js';
import { pastTokenOrRefuse } from './past-block.js';

/**
 * module=account&action=tokenbalancehistory: what balanceOf(address) returned at the end of
 * block `blockno`, from the kept history (the live row, or one probe of balance_intervals_key). "0" for
 * none, as tokenbalance answers now; refused above the indexed block and below the kept history.
 */
export const tokenBalanceHistory = balanceOfAction({
  action: 'tokenbalancehistory',
  summary: "an address's balance of one token at a past block (ERC-20 amount, or ERC-721 count), \"0\" when none",
  parameters: { blockno: 'the block' },
  async read({ db, chainId, query }, token, holder) {
    const block = integerParam(query, 'blockno', TEXT.blockNumber);
    // refused above the indexed block or below the history; a token not there yet held nothing
    if ((await pastTokenOrRefuse(db, chainId, token, block)) === null) return 0n;
    return balanceAt(db, chainId, token, holder, null, block);
  },
});
