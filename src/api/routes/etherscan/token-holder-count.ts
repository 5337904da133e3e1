import { findToken } from '../../../db/queries/holders.js';
import { ok } from './envelope.js';
import { addressParam } from './params.js';
import type { Action } from './action.js';

/** module=token&action=tokenholdercount: distinct holders; "0" for an address that is no token. */
export const tokenHolderCount: Action = async ({ db, chainId, query }) => {
  const token = addressParam(query, 'contractaddress', 'Error! Invalid contract address format');
  const found = await findToken(db, chainId, token);
  return ok((found?.holderCount ?? 0n).toString());
};
