import { balanceAt } from '../../../db/queries/holder-snapshots.js';
import { ok, TEXT } from './envelope.js';
import { addressParam, integerParam } from './params.js';
import { checkHistoryBlock } from './past-block.js';
import type { EtherscanAction } from './action.js';

/**
 * module=account&action=tokenbalancehistory: what balanceOf(address) returned at the end of
 * block `blockno`, from the kept history (one backward probe of balance_history_key). "0" for
 * none, as tokenbalance answers now; refused above the indexed block and below the kept history.
 */
export const tokenBalanceHistory: EtherscanAction = {
  module: 'account',
  action: 'tokenbalancehistory',
  summary: "an address's balance of one token at a past block (ERC-20 amount, or ERC-721 count), \"0\" when none",
  parameters: { contractaddress: 'the token', address: 'the holder', blockno: 'the block' },
  async run({ db, chainId, query }) {
    const token = addressParam(query, 'contractaddress', TEXT.contractAddress);
    const holder = addressParam(query, 'address', TEXT.address);
    const block = integerParam(query, 'blockno', TEXT.blockNumber);
    await checkHistoryBlock(db, chainId, token, block);
    return ok((await balanceAt(db, chainId, token, holder, null, block)).toString());
  },
};
