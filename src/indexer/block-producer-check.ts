/**
 * The chain's `blockProducer` checked at start, against its node and against what the index
 * already holds:
 * - `clique` on a chain whose head carries no Clique seal (or a header this code cannot hash)
 *   is refused with the start's one line, rather than every batch failing after it;
 * - `miner` on a chain whose head carries a Clique seal (its `miner` 0x0, or a vote's candidate)
 *   is said in a warning: its blocks would be filed under 0x0;
 * - a value changed after the chain was first indexed applies to new blocks only (the older
 *   ones keep the producer they were written with): the chain is marked mixed, and each start
 *   says so until it is indexed afresh, as a changed start block is (start-block.ts).
 */
import { ConfigError, type ChainConfig } from '../config/config.js';
import type { Database } from '../db/client.js';
import { firstIndexedBlock } from '../db/queries/progress.js';
import { BlockSealError, cliqueSigner, coinbaseOf } from '../evm/block-producer.js';
import { ZERO_ADDRESS } from '../evm/hex.js';
import { KEY_RECOVERY } from '../evm/recover-signer.js';
import type { RpcBlock } from '../rpc/types.js';
import type { RpcClient } from '../rpc/client.js';
import type { Logger } from './logger.js';

/** `chains.block_producer` of a chain indexed with more than one value */
const MIXED = 'mixed';

export async function checkBlockProducer(db: Database, chain: ChainConfig, rpc: RpcClient, logger: Logger, signal: AbortSignal): Promise<void> {
  if (chain.blockProducer === 'clique' && KEY_RECOVERY[0]![0] === 'noble') {
    logger.warn(
      { chainId: chain.chainId, platform: `${process.platform}-${process.arch}` },
      "blockProducer clique: no prebuilt libsecp256k1 for this platform, so each block's signer is recovered in JavaScript (~1.4 ms a block against ~0.05 ms)",
    );
  }
  // a node out of reach now (or still at genesis): the first batches tell
  const head = await rpc.getBlock('latest', false, { signal, maxRounds: 1 }).catch(() => null);
  if (head !== null && BigInt(head.number) > 0n) checkAgainstNode(chain, head, logger);
  await checkAgainstIndex(db, chain, logger);
}

function checkAgainstNode(chain: ChainConfig, head: RpcBlock, logger: Logger): void {
  const number = BigInt(head.number).toString();
  const coinbase = coinbaseOf(head);
  let signer: string | null;
  try {
    signer = cliqueSigner(head);
  } catch (error) {
    if (!(error instanceof BlockSealError)) throw error;
    if (chain.blockProducer === 'clique') {
      throw new ConfigError(`chain ${chain.chainId}: blockProducer is clique, but the node's ${error.message}; a chain that is not Clique needs blockProducer miner`);
    }
    signer = null;
  }
  if (signer === null || signer === coinbase) return;
  // a Clique block names 0x0 as its miner, or the candidate of a vote (an authorising vote's nonce
  // is all ones); a chain that names its producer, sealed another way, recovers to a stranger
  // (BSC's Parlia signs over its chain id too)
  const cliqueLike = coinbase === ZERO_ADDRESS || /^0xf{16}$/i.test(String(head.nonce));
  if (chain.blockProducer === 'miner' && cliqueLike) {
    logger.warn(
      { chainId: chain.chainId, block: number, signer, miner: coinbase },
      `this chain's blocks carry a Clique seal (block ${number}'s is signed by ${signer}, its miner is ${coinbase}): with blockProducer miner they are filed under their miner field; set blockProducer to clique to file them under their signers`,
    );
  } else if (chain.blockProducer === 'clique' && !cliqueLike) {
    logger.warn(
      { chainId: chain.chainId, block: number, signer, miner: coinbase },
      `blockProducer clique: block ${number} names ${coinbase} as its miner, but its seal recovers to ${signer}: on a chain whose miner field is its producer, use blockProducer miner (a Clique vote to drop ${coinbase} also looks so)`,
    );
  }
}

async function checkAgainstIndex(db: Database, chain: ChainConfig, logger: Logger): Promise<void> {
  const first = await firstIndexedBlock(db, chain.chainId);
  if (first === null) {
    await db.query('UPDATE chains SET block_producer = $2 WHERE chain_id = $1', [chain.chainId, chain.blockProducer]);
    return;
  }
  const rows = await db.query<{ block_producer: string | null }>('SELECT block_producer FROM chains WHERE chain_id = $1', [chain.chainId]);
  const indexedWith = rows[0]?.block_producer ?? 'miner';
  if (indexedWith === chain.blockProducer) return;
  // switching back does not unmix what was indexed meanwhile (review: the warning went silent)
  if (indexedWith !== MIXED) await db.query('UPDATE chains SET block_producer = $2 WHERE chain_id = $1', [chain.chainId, MIXED]);
  const before = indexedWith === MIXED ? 'more than one blockProducer' : `blockProducer ${indexedWith}`;
  logger.warn(
    { chainId: chain.chainId, indexedWith, blockProducer: chain.blockProducer },
    `this chain's blocks were indexed with ${before}; ${chain.blockProducer} applies to the blocks indexed from now on, so the blocks-validated operation mixes them: \`explorer chains remove ${chain.chainId} --yes\`, then start again, to index it all with ${chain.blockProducer}`,
  );
}
