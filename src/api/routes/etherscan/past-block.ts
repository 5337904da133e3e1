import type { Database } from '../../../db/client.js';
import type { Hex, TokenType } from '../../../db/rows.js';
import { checkPastBlock } from '../../past-block.js';
import { EtherscanError, TEXT } from './envelope.js';
import { integerParam, type EtherscanQuery } from './params.js';

/**
 * `blockno` where an action takes one optionally: undefined when absent (now). An empty value
 * is refused like any other that is not a block number: a snapshot script whose block variable
 * came out empty must not get today's holders as if they were the snapshot's.
 */
export function optionalBlockno(query: EtherscanQuery): bigint | undefined {
  return query.blockno === undefined ? undefined : integerParam(query, 'blockno', TEXT.blockNumber);
}

function refuse(refusal: 'beyond-index' | 'below-history'): never {
  throw new EtherscanError(refusal === 'beyond-index' ? TEXT.historyBeyondIndex : TEXT.historyPruned);
}

/** The token's type if history answers for it at `block`, null when there was no such token then; refusals thrown. */
export async function pastTokenOrRefuse(db: Database, chainId: number, token: Hex, block: bigint): Promise<TokenType | null> {
  const past = await checkPastBlock(db, chainId, token, block);
  if (past.ok) return past.tokenType;
  if (past.refusal === 'no-token') return null;
  return refuse(past.refusal);
}
