import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../../db/client.js';
import { blockByHash, consensusBlockAt, nonConsensusBlockHashAt, type ValidatedBlock } from '../../db/queries/blocks.js';
import { errorResponses, KeyOnlyQuery } from '../schemas/common.js';
import { BlockParams, SingleBlockObject } from '../schemas/blocks.js';
import { singleBlockView } from '../views/block.js';
import { HttpError, notFound } from '../http-error.js';
import { parseBlockParam, type BlockRef } from '../block-param.js';
import { getRoutes } from './get-route.js';

const { 403: _restricted, ...withoutRestricted } = errorResponses;

/** Block numbers are bigint in SQL: a larger (valid) number names no block. */
const MAX_BLOCK_NUMBER = 2n ** 63n - 1n;

/**
 * The block at a number or hash, as the reference answers: by hash any block (a reorged or uncle
 * one carries its `type`); by number the consensus block, else 404 "Block lost consensus" with
 * the hash of a non-consensus block at that height, else 404 "Not found".
 */
async function findBlock(db: Queryable, chainId: number, ref: BlockRef): Promise<ValidatedBlock> {
  if (ref.kind === 'hash') {
    const block = await blockByHash(db, chainId, ref.hash);
    if (!block) throw notFound();
    return block;
  }
  if (ref.number > MAX_BLOCK_NUMBER) throw notFound();
  const block = await consensusBlockAt(db, chainId, ref.number);
  if (block) return block;
  const lost = await nonConsensusBlockHashAt(db, chainId, ref.number);
  if (lost) throw new HttpError(404, 'Block lost consensus', { hash: lost });
  throw notFound();
}

export function blockRoute(app: FastifyInstance, db: Queryable): void {
  const get = getRoutes(app, { tags: ['blocks'], params: BlockParams, querystring: KeyOnlyQuery });
  get(
    '/:chain_id/api/v2/blocks/:block_hash_or_number_param',
    {
      summary: 'A block by number or hash',
      description:
        'By hash: any block, non-consensus ones with type "reorg" or "uncle". By number: the consensus block; ' +
        'when only a non-consensus block is known at that height, 404 {"message":"Block lost consensus","hash":…}. ' +
        'On Arbitrum chains the block carries its `arbitrum` object.',
      response: SingleBlockObject,
      // no 403: the path names no address the operator could restrict
      errors: { ...withoutRestricted, 404: { $ref: 'BlockNotFound#' } },
      pageCache: true,
    },
    async (request) => {
      const ref = parseBlockParam(request.params.block_hash_or_number_param);
      const block = await findBlock(db, request.chain.chainId, ref);
      return singleBlockView(block, request.chain);
    },
  );
}
