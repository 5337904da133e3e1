import { findToken } from '../../../db/queries/holders.js';
import { ok, TEXT } from './envelope.js';
import { addressParam } from './params.js';
import { optionalBlockno, pastTokenOrRefuse } from './past-block.js';
import { summaryAt } from '../../../db/queries/balance-history.js';
import type { EtherscanAction } from './action.js';

/**
 * module=token&action=tokenholdercount: distinct holders; "0" for an address that is no token.
 * With `blockno`, at that block (counted once per block and kept).
 */
export const tokenHolderCount: EtherscanAction = {
  module: 'token',
  action: 'tokenholdercount',
  summary: "a token's number of distinct holders",
  parameters: { contractaddress: 'the token', blockno: 'optional: the count at the end of this block' },
  async run({ db, chainId, query }) {
    const token = addressParam(query, 'contractaddress', TEXT.contractAddress);
    const block = optionalBlockno(query);
    if (block !== undefined) {
      const tokenType = await pastTokenOrRefuse(db, chainId, token, block);
      return ok(tokenType === null ? '0' : (await summaryAt(db, chainId, token, tokenType, block)).holderCount.toString());
    }
    const found = await findToken(db, chainId, token);
    return ok((found?.holderCount ?? 0n).toString());
  },
};
