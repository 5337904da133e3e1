/**
 * The follower's view of the Nitro contracts against the ABIs @arbitrum/nitro-contracts ships:
 * every batch-posting function and event we decode has the real contract's selector / topic, and
 * calldata encoded with the real ABI decodes to its counts and data.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeFunctionData, toEventSelector, toFunctionSelector, type AbiFunction, type AbiEvent, zeroAddress } from 'viem';
import { nitro } from '../../../test/support/arbitrum/rollup.js';
import { batchPostingAbi, outboxEventsAbi, rollupAbi, sequencerInboxEventsAbi } from './abi.js';
import { containerOfData, decodeBatchCall } from './batch-data.js';

const selectors = (abi: readonly unknown[]) =>
  new Set((abi as AbiFunction[]).filter((x) => x.type === 'function').map((f) => toFunctionSelector(f)));
const topics = (abi: readonly unknown[]) => new Set((abi as AbiEvent[]).filter((x) => x.type === 'event').map((e) => toEventSelector(e)));

describe('Nitro contract interfaces', () => {
  it('every batch-posting function and event is the shipped contract\'s', () => {
    const inbox = nitro.sequencerInbox().abi;
    const real = selectors(inbox);
    const ours = (batchPostingAbi as readonly unknown[] as AbiFunction[]).filter((x) => x.type === 'function');
    expect(ours).toHaveLength(7);
    for (const f of ours) expect(real.has(toFunctionSelector(f)), f.name).toBe(true);
    for (const t of topics(sequencerInboxEventsAbi)) expect(topics(inbox).has(t)).toBe(true);
    for (const t of topics(outboxEventsAbi)) expect(topics(nitro.outbox().abi).has(t)).toBe(true);
    // the rollup's getters are the real rollup's (RollupCore)
    const rollup = selectors(nitroRollupAbi());
    for (const f of selectors(rollupAbi)) expect(rollup.has(f)).toBe(true);
  });

  it('counts and data from calldata encoded with the real ABI, for each form', () => {
    const abi = nitro.sequencerInbox().abi;
    const proof = { beforeDelayedAcc: `0x${'11'.repeat(32)}`, delayedMessage: { kind: 3, sender: zeroAddress, blockNumber: 1n, timestamp: 2n, inboxSeqNum: 3n, baseFeeL1: 4n, messageDataHash: `0x${'22'.repeat(32)}` } };
    const cases = [
      ['addSequencerL2BatchFromOrigin', [7n, '0x00aa', 0n, zeroAddress, 10n, 15n], '0x00aa'],
      ['addSequencerL2Batch', [7n, '0x80bb', 0n, zeroAddress, 10n, 15n], '0x80bb'],
      ['addSequencerL2BatchFromBlobs', [7n, 0n, zeroAddress, 10n, 15n], null],
      ['addSequencerL2BatchFromBlobsDelayProof', [7n, 0n, zeroAddress, 10n, 15n, proof], null],
      ['addSequencerL2BatchFromOriginDelayProof', [7n, '0x88cc', 0n, zeroAddress, 10n, 15n, proof], '0x88cc'],
      ['addSequencerL2BatchDelayProof', [7n, '0x20dd', 0n, zeroAddress, 10n, 15n, proof], '0x20dd'],
    ] as const;
    for (const [functionName, args, data] of cases) {
      const input = encodeFunctionData({ abi, functionName, args: args as never });
      expect(decodeBatchCall(input), functionName).toEqual({ prevMessageCount: 10n, newMessageCount: 15n, data });
    }
    // the legacy four-argument form has no counts; another contract's call is not a batch call
    const legacy = encodeFunctionData({ abi: batchPostingAbi, functionName: 'addSequencerL2BatchFromOrigin', args: [7n, '0x00', 0n, zeroAddress] });
    expect(decodeBatchCall(legacy)).toEqual({ prevMessageCount: null, newMessageCount: null, data: '0x00' });
    expect(decodeBatchCall('0x12345678')).toBeNull();
  });

  it('the issue\'s table of header bytes', () => {
    expect(['0x00ff', '0x80', '0x88', '0x63', '0xed', '0x20', '0x01', '0x', null].map((d) => containerOfData(d as never))).toEqual([
      'in_calldata', 'in_anytrust', 'in_anytrust', 'in_celestia', 'in_eigenda', null, null, null, null,
    ]);
  });
});

function nitroRollupAbi() {
  // RollupUserLogic's ABI holds RollupCore's getters
  return (nitroArtifactAbi('build/contracts/src/rollup/RollupUserLogic.sol/RollupUserLogic.json'));
}

function nitroArtifactAbi(path: string): readonly unknown[] {
  const root = dirname(createRequire(import.meta.url).resolve('@arbitrum/nitro-contracts/package.json'));
  return (JSON.parse(readFileSync(join(root, path), 'utf8')) as { abi: unknown[] }).abi;
}
