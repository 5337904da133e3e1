/**
 * Who produced a block: the address the blocks-validated operation files it under.
 *
 * `miner`: the header's `miner` (coinbase), right for proof of work, Ethereum's validators, AuRa
 * and rollup sequencers. `clique`: the signer of the block's Clique seal, the last 65 bytes of
 * `extraData`, recovered over the header without them (EIP-225; header-rlp.ts sealedHeaderRlp).
 * geth's Clique PoA chains and Polygon PoS (Bor) seal so and leave `miner` the zero address,
 * which otherwise files every block under 0x0 (the reference's issue 6141; its
 * `BLOCK_TRANSFORMER=clique` leaves the base fee out of the sealed fields, so a signer it
 * recovers past London is a wrong address).
 */
import { hexToBytes, keccak256, type Hex as ViemHex } from 'viem';
import type { Hex } from '../db/rows.js';
import type { RpcBlock } from '../rpc/types.js';
import { blockNumberText, HeaderFieldError, headerMatchesHash, sealedHeaderRlp } from './header-rlp.js';
import { lowerHex, ZERO_ADDRESS } from './hex.js';
import { recoverSigner } from './recover-signer.js';

export const BLOCK_PRODUCERS = ['miner', 'clique'] as const;
export type BlockProducer = (typeof BLOCK_PRODUCERS)[number];

const SEAL_BYTES = 65;
/** the vanity every Clique header begins with */
const VANITY_BYTES = 32;

/** A block whose producer cannot be read as configured: the chain does not seal as said, or its header has a field we do not know. */
export class BlockSealError extends Error {
  override readonly name = 'BlockSealError';
}

/** The header's `miner`; a block that names none is the zero address's (some rollups' sequencers). */
export function coinbaseOf(block: RpcBlock): Hex {
  return lowerHex(block.miner ?? block.author ?? ZERO_ADDRESS);
}

/**
 * The Clique signer of `block`. The header is first checked to hash to the block's hash, so
 * the seal's message is the header exactly as the chain signed it.
 */
export function cliqueSigner(block: RpcBlock): Hex {
  const number = blockNumberText(block);
  const extra = typeof block['extraData'] === 'string' ? block['extraData'] : '0x';
  const bytes = (extra.length - 2) / 2;
  if (bytes < VANITY_BYTES + SEAL_BYTES) {
    throw new BlockSealError(`block ${number} has no Clique seal: its extraData is ${bytes} bytes, under ${VANITY_BYTES + SEAL_BYTES}`);
  }
  let matches: boolean;
  try {
    matches = headerMatchesHash(block);
  } catch (error) {
    if (!(error instanceof HeaderFieldError)) throw error;
    throw new BlockSealError(`${error.message}, so its seal cannot be checked`);
  }
  if (!matches) {
    throw new BlockSealError(
      `block ${number}: the header fields the node sent do not hash to the block's hash (a field missing, altered, or one this chain adds that is not known here), so its seal cannot be checked`,
    );
  }
  const sealAt = extra.length - SEAL_BYTES * 2;
  const sealHash = keccak256(sealedHeaderRlp(block, extra.slice(0, sealAt)), 'bytes');
  const seal = hexToBytes(`0x${extra.slice(sealAt)}` as ViemHex);
  try {
    return recoverSigner(sealHash, seal.subarray(0, 64), seal[64]!);
  } catch (error) {
    throw new BlockSealError(`block ${number} has no valid Clique seal (${(error as Error).message})`);
  }
}

/**
 * The block's producer as the chain is configured. A genesis block is never sealed (its
 * extraData lists the first signers): it keeps its `miner`.
 */
export function blockProducerOf(block: RpcBlock, producer: BlockProducer): Hex {
  if (producer === 'miner' || BigInt(block.number) === 0n) return coinbaseOf(block);
  try {
    return cliqueSigner(block);
  } catch (error) {
    if (!(error instanceof BlockSealError)) throw error;
    throw new BlockSealError(`${error.message}; blockProducer clique needs every block after genesis sealed (a chain that is not Clique needs miner)`);
  }
}
