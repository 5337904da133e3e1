/**
 * Exact (===) agreement with every block the reference explorer returned in the recordings:
 * 201 block objects, percentages printed as shortest round-trip doubles.
 */
import { describe, expect, it } from 'vitest';
import { readFixture } from '../../../test/support/replay-rpc.js';
import { burntFeesPercentage, gasTargetPercentage, gasUsedPercentage } from './block-percentages.js';

interface RecordedBlock {
  height: number;
  gas_used: string;
  gas_limit: string;
  burnt_fees: string;
  transaction_fees?: string;
  tx_fees?: string;
  gas_used_percentage: number;
  gas_target_percentage: number;
  burnt_fees_percentage: number | null;
}

const recordings = [
  'api_v2_blocks.2025-08-11.json',
  'api_v2_blocks.2025-02-19.json',
  'api_v2_blocks.2024-06-12.json',
  'api_v2_blocks_12345.json',
  'api_v2_addresses_0x4838B106FCe9647Bdf1E7877BF73cE8B0BAD5f97_blocks-validated.json',
];

function recordedBlocks(): RecordedBlock[] {
  return recordings.flatMap((file) => {
    const recording = readFixture(`blockscout-eth-api-v2/${file}`) as { response: { body: string } };
    const body = JSON.parse(recording.response.body) as { items?: RecordedBlock[] } & RecordedBlock;
    return body.items ?? [body];
  });
}

describe('block percentages', () => {
  const blocks = recordedBlocks();

  it('covers all recorded blocks', () => {
    expect(blocks).toHaveLength(201);
  });

  it('equal the reference’s numbers exactly', () => {
    const mismatches = blocks.filter((b) => {
      const gasUsed = BigInt(b.gas_used);
      const gasLimit = BigInt(b.gas_limit);
      const fees = BigInt(b.transaction_fees ?? b.tx_fees ?? '0');
      return (
        gasUsedPercentage(gasUsed, gasLimit) !== b.gas_used_percentage ||
        gasTargetPercentage(gasUsed, gasLimit) !== b.gas_target_percentage ||
        burntFeesPercentage(BigInt(b.burnt_fees), fees) !== b.burnt_fees_percentage
      );
    });
    expect(mismatches.map((b) => b.height)).toEqual([]);
  });

  it('follow the documented edge cases', () => {
    expect(gasUsedPercentage(0n, 0n)).toBe(0);
    expect(gasTargetPercentage(0n, 0n)).toBe(0);
    expect(gasTargetPercentage(15_000_000n, 30_000_000n)).toBe(0);
    expect(gasTargetPercentage(0n, 30_000_000n)).toBe(-100);
    expect(gasTargetPercentage(30_000_000n, 30_000_000n)).toBe(100);
    // Elasticity 8 (some L2s): the target is an eighth of the limit.
    expect(gasTargetPercentage(30_000_000n / 8n, 30_000_000n, 8n)).toBe(0);
    expect(burntFeesPercentage(0n, 0n)).toBeNull();
  });
});
