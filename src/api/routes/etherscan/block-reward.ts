import { consensusBlockAt } from '../../../db/queries/blocks.js';
import { uncleHeaders } from '../../../db/queries/block-reward.js';
import { REWARD_TYPE } from '../../../evm/traces.js';
import { uncleRewards } from '../../../evm/uncle-rewards.js';
import { EtherscanError, ok, TEXT } from './envelope.js';
import { integerParam } from './params.js';
import type { EtherscanAction } from './action.js';

/**
 * module=block&action=getblockreward: the consensus block's miner and what it was paid
 * (the same amount getminedblocks lists: its reward entries less uncle rewards, so block
 * reward, inclusion reward and fees as the node's traces credit them), each uncle's miner and
 * reward, and the inclusion part on its own.
 */
export const blockReward: EtherscanAction = {
  module: 'block',
  action: 'getblockreward',
  summary: "a block's miner and rewards, its uncles' miners and rewards",
  parameters: { blockno: 'block number' },
  async run({ db, chainId, query }) {
    const number = integerParam(query, 'blockno', TEXT.blockNumber);
    const found = await consensusBlockAt(db, chainId, number);
    if (!found) throw new EtherscanError(TEXT.blockNotFound);
    const { block } = found;
    const miner = block.miner.toLowerCase();
    const paid = block.rewards
      .filter((r) => r.address.toLowerCase() === miner && r.type !== REWARD_TYPE.uncle)
      .reduce((sum, r) => sum + r.reward, 0n);
    const uncles = uncleRewards(block.number, block.uncleHashes, await uncleHeaders(db, chainId, block.uncleHashes), block.rewards);
    return ok({
      blockNumber: block.number.toString(),
      timeStamp: block.timestamp.toString(),
      blockMiner: miner,
      blockReward: paid.toString(),
      uncles: uncles.uncles.map((u) => ({ miner: u.miner, unclePosition: String(u.position), blockreward: u.reward.toString() })),
      uncleInclusionReward: uncles.inclusionReward.toString(),
    });
  },
};
