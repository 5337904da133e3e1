import type { ChainConfig } from '../config/config.js';
import type { Logger } from './logger.js';

/**
 * A start block changed after the chain was first indexed is not applied: the balances kept
 * are the sums of the blocks indexed, which a new start would neither add to nor take from
 * (L2 review: --start-block 0 after 60 was ignored without a word, the older holders still
 * missing). Said at every start until the operator indexes the chain afresh.
 */
export function warnIfStartBlockChanged(first: bigint | null, chain: ChainConfig, logger: Logger): void {
  if (first === null || first === chain.startBlock) return;
  logger.warn(
    { chainId: chain.chainId, indexedFrom: first.toString(), startBlock: chain.startBlock.toString() },
    `this chain was indexed from block ${first}; startBlock ${chain.startBlock} applies to a chain indexed afresh only: \`explorer chains remove ${chain.chainId} --yes\`, then start again, to index it from there`,
  );
}
