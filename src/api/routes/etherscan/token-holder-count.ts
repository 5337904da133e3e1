import { findToken } from '../../../db/queries/holders.js';
import { ok, TEXT } from './envelope.js';
import { addressParam } from './params.js';
import { optionalBlockno, snapshotOrRefuse } from './past-block.js';
import type { EtherscanAction } from './action.js';

/**
 * module=token&action=tokenholdercount: distinct holders; "0" for an address that is no token.
 * With `blockno`, at that block (from the token's snapshot there).
 */
export const tokenHolderCount: EtherscanAction = {
  module: 'token',
  action: 'tokenholdercount',
  summary: "a token's number of distinct holders",
  parameters: { contractaddress: 'the token', blockno: 'optional: the count at the end of this block' },
  async run({ db, chainId, query }) {
    const token = addressParam(query, 'contractaddress', TEXT.contractAddress);
    const block = optionalBlockno(query);
    if (block !== undefined) return ok(((await snapshotOrRefuse(db, chainId, token, block))?.snapshot.holderCount ?? 0n).toString());
    const found = await findToken(db, chainId, token);
    return ok((found?.holderCount ?? 0n).toString());
  },
};
