import { holdersWindow } from '../../../db/queries/holders-window.js';
import { noRecords, ok } from './envelope.js';
import { addressParam, windowParams } from './params.js';
import type { Action } from './action.js';

/**
 * module=token&action=tokenholderlist: holders richest first, in the v2 list's order (ERC-1155:
 * one row per holder and token id, like that list). An unknown token has no holders.
 */
export const tokenHolderList: Action = async ({ db, chainId, query }) => {
  const token = addressParam(query, 'contractaddress', 'Error! Invalid contract address format');
  const rows = await holdersWindow(db, { chainId, token, ...windowParams(query) });
  if (rows.length === 0) return noRecords('No token holders found');
  return ok(rows.map((r) => ({ TokenHolderAddress: r.holder, TokenHolderQuantity: r.value.toString() })));
};
