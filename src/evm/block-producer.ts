/**
 * Who produced a block: the address the blocks-validated operation files it under.
 *
 * `miner`: the header's `miner` (coinbase), right for proof of work, Ethereum's validators, AuRa
 * and rollup sequencers. `clique`: the signer of the block's Clique seal, the last 65 bytes of
 * `extraData`, recovered over the header without them (EIP-225). geth's Clique PoA chains and
 * Polygon PoS (Bor) seal so and leave `miner` the zero address, which otherwise files every
 * block under 0x0 (the reference's issue 6141; its `BLOCK_TRANSFORMER=clique` hashes only the
 * pre-London fields, so a signer it recovers past London is a wrong address).
 */
import { secp256k1 } from '@noble/curves/secp256k1';
import { hexToBytes, keccak256, type Hex as ViemHex } from 'viem';
import type { Hex } from '../db/rows.js';
import type { RpcBlock } from '../rpc/types.js';
import { headerMatchesHash, headerRlp } from './header-rlp.js';
import { lowerHex, ZERO_ADDRESS } from './hex.js';

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
  const extra = typeof block['extraData'] === 'string' ? block['extraData'] : '0x';
  const bytes = (extra.length - 2) / 2;
  if (bytes < VANITY_BYTES + SEAL_BYTES) {
    throw new BlockSealError(`block ${BigInt(block.number)} has no Clique seal: its extraData is ${bytes} bytes, under ${VANITY_BYTES + SEAL_BYTES}`);
  }
  if (!headerMatchesHash(block)) {
    throw new BlockSealError(
      `block ${BigInt(block.number)}: the header fields the node sent do not hash to the block's hash, so its seal cannot be checked (a header field of this chain not known here)`,
    );
  }
  const sealAt = extra.length - SEAL_BYTES * 2;
  const sealHash = keccak256(headerRlp(block, extra.slice(0, sealAt)));
  const seal = hexToBytes(`0x${extra.slice(sealAt)}` as ViemHex);
  const recovery = seal[64]!;
  try {
    if (recovery > 1) throw new Error(`recovery id ${recovery}`);
    const key = secp256k1.Signature.fromCompact(seal.subarray(0, 64)).addRecoveryBit(recovery).recoverPublicKey(hexToBytes(sealHash).slice());
    const address = keccak256(key.toRawBytes(false).subarray(1)).slice(-40);
    return `0x${address}`;
  } catch (error) {
    throw new BlockSealError(`block ${BigInt(block.number)} has no valid Clique seal (${(error as Error).message})`);
  }
}

/**
 * The block's producer as the chain is configured. A genesis block is never sealed (its
 * extraData lists the first signers): it keeps its `miner`.
 */
export function blockProducerOf(block: RpcBlock, producer: BlockProducer): Hex {
  if (producer === 'miner' || BigInt(block.number) === 0n) return coinbaseOf(block);
  return cliqueSigner(block);
}
