/**
 * The address that signed a 32-byte digest, from a 64-byte r‖s signature and its recovery id.
 *
 * libsecp256k1 through npm `secp256k1`'s prebuilt binding (Linux x64 glibc and musl, macOS arm64,
 * Windows x64) recovers a key in ~50 µs; noble's JavaScript, the fallback where the binding does
 * not load, takes ~1.4 ms, which made a Clique chain's transform 250 times slower per empty block
 * (bench/clique-seal.ts). The binding is required by its own path: the package's entry would fall
 * back to `elliptic` instead of noble.
 */
import { createRequire } from 'node:module';
import { secp256k1 } from '@noble/curves/secp256k1';
import { keccak256, type Hex } from 'viem';
import type SecpBinding from 'secp256k1';

function loadBinding(): typeof SecpBinding | null {
  try {
    return createRequire(import.meta.url)('secp256k1/bindings.js') as typeof SecpBinding;
  } catch {
    return null;
  }
}

type RecoverKey = (digest: Uint8Array, signature: Uint8Array, recovery: number) => Uint8Array;

const binding = loadBinding();

/** Each implementation that loads here, the first the one used (a test checks them all). */
const noble: RecoverKey = (digest, signature, recovery) =>
  secp256k1.Signature.fromCompact(signature).addRecoveryBit(recovery).recoverPublicKey(digest).toRawBytes(false);

/** Each implementation that loads here, the first the one used (a test checks them all). */
export const KEY_RECOVERY: ReadonlyArray<readonly ['libsecp256k1' | 'noble', RecoverKey]> =
  binding === null
    ? [['noble', noble]]
    : [['libsecp256k1', (digest, signature, recovery) => binding.ecdsaRecover(signature, recovery, digest, false)], ['noble', noble]];

/** Throws when the signature is not one (r or s out of range, no point for r). */
export function recoverSigner(digest: Uint8Array, signature: Uint8Array, recovery: number, recoverKey: RecoverKey = KEY_RECOVERY[0]![1]): Hex {
  if (recovery !== 0 && recovery !== 1) throw new Error(`recovery id ${recovery}`);
  return `0x${keccak256(recoverKey(digest, signature, recovery).subarray(1)).slice(-40)}`;
}
