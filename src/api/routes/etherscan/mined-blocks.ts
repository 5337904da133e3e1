import { minedBlocksWindow } from '../../../db/queries/mined-blocks.js';
import { EMPTY, noRecords, ok, TEXT } from './envelope.js';
import { addressParam, choiceParam, pageWindow, PAGING_PARAMETERS } from './params.js';
import type { EtherscanAction } from './action.js';

/**
 * module=account&action=getminedblocks: consensus blocks (blocktype=blocks, the default) or
 * uncles mined by the address, newest first, with what the miner was paid for each.
 */
export const minedBlocks: EtherscanAction = {
  module: 'account',
  action: 'getminedblocks',
  summary: 'blocks or uncles mined by an address, with the reward of each',
  parameters: { address: 'the miner', blocktype: 'blocks (default) or uncles', ...PAGING_PARAMETERS },
  async run({ db, chainId, query }) {
    const miner = addressParam(query, 'address', TEXT.address);
    const kind = choiceParam(query, 'blocktype', ['blocks', 'uncles'] as const, 'blocks', TEXT.blockType);
    const rows = await minedBlocksWindow(db, { chainId, miner, kind, ...pageWindow(query, { deep: false, sort: 'desc' }) });
    if (rows.length === 0) return noRecords(EMPTY.transactions);
    return ok(rows.map((b) => ({ blockNumber: b.number.toString(), timeStamp: b.timestamp.toString(), blockReward: b.reward.toString() })));
  },
};
