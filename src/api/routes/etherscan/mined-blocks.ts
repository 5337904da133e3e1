import { minedBlocksWindow } from '../../../db/queries/mined-blocks.js';
import { EtherscanError, noRecords, ok } from './envelope.js';
import { addressParam, windowParams } from './params.js';
import type { Action } from './action.js';

/**
 * module=account&action=getminedblocks: consensus blocks (blocktype=blocks, the default) or
 * uncles mined by the address, newest first, with what the miner was paid for each.
 */
export const minedBlocks: Action = async ({ db, chainId, query }) => {
  const miner = addressParam(query, 'address', 'Error! Invalid address format');
  const kind = query.blocktype ?? 'blocks';
  if (kind !== 'blocks' && kind !== 'uncles') throw new EtherscanError('Error! Invalid blocktype');
  const rows = await minedBlocksWindow(db, { chainId, miner, kind, ...windowParams(query) });
  if (rows.length === 0) return noRecords('No blocks found');
  return ok(
    rows.map((b) => ({ blockNumber: b.number.toString(), timeStamp: b.timestamp.toString(), blockReward: b.reward.toString() })),
  );
};
