/**
 * The chain's `blockProducer` checked at start, against its node and against what the index
 * already holds:
 * - `clique` on a chain whose head carries no Clique seal (or a header this code cannot hash)
 *   is refused with the start's one line, rather than every batch failing after it;
 * - `miner` on a chain whose head names the zero address and carries a Clique seal is said in a
 *   warning: its blocks would all be filed under 0x0;
 * - a value changed after the chain was first indexed applies to new blocks only (the older
 *   ones keep the producer they were written with), said at every start as a changed start
 *   block is (start-block.ts).
 */
import { ConfigError, type ChainConfig } from '../config/config.js';
import type { Database } from '../db/client.js';
import { firstIndexedBlock } from '../db/queries/progress.js';
import { BlockSealError, cliqueSigner, coinbaseOf, type BlockProducer } from '../evm/block-producer.js';
import { ZERO_ADDRESS } from '../evm/hex.js';
import type { RpcClient } from '../rpc/client.js';
import type { Logger } from './logger.js';

export async function checkBlockProducer(db: Database, chain: ChainConfig, rpc: RpcClient, logger: Logger, signal: AbortSignal): Promise<void> {
  await checkAgainstIndex(db, chain, logger);
  const head = await rpc.getBlock('latest', false, { signal, maxRounds: 1 }).catch(() => null);
  if (head === null || BigInt(head.number) === 0n) return; // a node out of reach now: the first batch tells
  if (chain.blockProducer === 'clique') {
    try {
      cliqueSigner(head);
    } catch (error) {
      if (!(error instanceof BlockSealError)) throw error;
      throw new ConfigError(`chain ${chain.chainId}: blockProducer is clique, but the node's ${error.message}`);
    }
    return;
  }
  if (coinbaseOf(head) !== ZERO_ADDRESS) return;
  let signer: string;
  try {
    signer = cliqueSigner(head);
  } catch {
    return;
  }
  logger.warn(
    { chainId: chain.chainId, block: BigInt(head.number).toString(), signer },
    `this chain's blocks name no miner (0x0) and carry a Clique seal (block ${BigInt(head.number)}'s is signed by ${signer}): with blockProducer miner every block is filed under 0x0; set blockProducer to clique to file them under their signers`,
  );
}

async function checkAgainstIndex(db: Database, chain: ChainConfig, logger: Logger): Promise<void> {
  const first = await firstIndexedBlock(db, chain.chainId);
  if (first === null) {
    await db.query('UPDATE chains SET block_producer = $2 WHERE chain_id = $1', [chain.chainId, chain.blockProducer]);
    return;
  }
  const rows = await db.query<{ block_producer: BlockProducer | null }>('SELECT block_producer FROM chains WHERE chain_id = $1', [chain.chainId]);
  const indexedWith = rows[0]?.block_producer ?? 'miner';
  if (indexedWith === chain.blockProducer) return;
  logger.warn(
    { chainId: chain.chainId, indexedWith, blockProducer: chain.blockProducer },
    `this chain's blocks were indexed with blockProducer ${indexedWith}; ${chain.blockProducer} applies to the blocks indexed from now on, so the blocks-validated operation mixes both: \`explorer chains remove ${chain.chainId} --yes\`, then start again, to index it all with ${chain.blockProducer}`,
  );
}
