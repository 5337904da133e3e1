import { blockByTime as closestBlock } from '../../../db/queries/block-by-time.js';
import { EtherscanError, ok, TEXT } from './envelope.js';
import { choiceParam, integerParam } from './params.js';
import type { EtherscanAction } from './action.js';

/** module=block&action=getblocknobytime: the consensus block closest to a unix time. */
export const blockByTime: EtherscanAction = {
  module: 'block',
  action: 'getblocknobytime',
  summary: 'the last block at or before (closest=before) or first at or after (closest=after) a unix time',
  parameters: { timestamp: 'unix seconds', closest: 'before (default) or after' },
  async run({ db, chainId, query }) {
    const timestamp = integerParam(query, 'timestamp', TEXT.timestamp);
    const closest = choiceParam(query, 'closest', ['before', 'after'] as const, 'before', TEXT.closest);
    const number = await closestBlock(db, { chainId, timestamp, closest });
    if (number === null) throw new EtherscanError(TEXT.noClosestBlock);
    return ok(number.toString());
  },
};
