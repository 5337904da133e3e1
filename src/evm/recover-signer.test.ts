/**
 * Key recovery against signatures made by viem's own signer (noble), with both implementations
 * that load here: the prebuilt libsecp256k1 binding and the JavaScript fallback.
 */
import { describe, expect, it } from 'vitest';
import { hexToBytes, keccak256, parseSignature } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { KEY_RECOVERY, recoverSigner } from './recover-signer.js';

describe('recoverSigner', () => {
  it('the binding loads on this platform (Linux x64), and noble is always there', () => {
    expect(KEY_RECOVERY.map(([name]) => name)).toEqual(process.platform === 'linux' && process.arch === 'x64' ? ['libsecp256k1', 'noble'] : expect.arrayContaining(['noble']));
  });

  it.each(KEY_RECOVERY.map(([name, recover]) => [name, recover] as const))('%s: the signer of 20 digests, and a wrong recovery id another address', async (_name, recover) => {
    for (let i = 0; i < 20; i++) {
      const account = privateKeyToAccount(generatePrivateKey());
      const digest = keccak256(`0x${i.toString(16).padStart(4, '0')}`);
      const { r, s, yParity } = parseSignature(await account.sign({ hash: digest }));
      const signature = hexToBytes(`${r}${s.slice(2)}` as `0x${string}`);
      expect(recoverSigner(hexToBytes(digest), signature, yParity!, recover)).toBe(account.address.toLowerCase());
      let other: string;
      try {
        other = recoverSigner(hexToBytes(digest), signature, 1 - yParity!, recover);
      } catch {
        continue; // no point for r with the other parity: no key at all
      }
      expect(other).not.toBe(account.address.toLowerCase());
    }
  });

  it('a recovery id other than 0 or 1, or an s of zero: refused', () => {
    const digest = hexToBytes(keccak256('0x01'));
    expect(() => recoverSigner(digest, new Uint8Array(64).fill(1), 27)).toThrow(/recovery id 27/);
    for (const [, recover] of KEY_RECOVERY) expect(() => recoverSigner(digest, new Uint8Array(64), 0, recover)).toThrow();
  });
});
