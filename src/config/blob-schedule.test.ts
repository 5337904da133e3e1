/**
 * The known schedules against recorded mainnet data: consecutive blocks of the reference's
 * recordings (2024-06, 2025-02, 2025-08) must show the excess moving by `used − target`, with the
 * target of the fork our schedule puts at each block's timestamp (Cancun 3 blobs, Prague 6).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureDir } from '../../test/support/replay-rpc.js';
import { blobParamsAt, blobScheduleFor, DEFAULT_BLOB_SCHEDULE, KNOWN_BLOB_SCHEDULES, type BlobSchedule } from './blob-schedule.js';
import { ConfigError } from './setting.js';
import { loadConfig } from './config.js';

const GAS_PER_BLOB = 131_072n;

interface RecordedBlock {
  height: number;
  timestamp: string;
  blob_gas_used: string;
  excess_blob_gas: string;
}

function recordedBlocks(file: string): RecordedBlock[] {
  const recording = JSON.parse(readFileSync(path.join(fixtureDir, 'blockscout-eth-api-v2', file), 'utf8')) as { response: { body: string } };
  return (JSON.parse(recording.response.body) as { items: RecordedBlock[] }).items;
}

describe('Ethereum mainnet blob schedule against the recorded blocks', () => {
  const mainnet = KNOWN_BLOB_SCHEDULES.get(1)!;

  it.each([
    ['api_v2_blocks.2024-06-12.json', 'cancun'],
    ['api_v2_blocks.2025-02-19.json', 'cancun'],
    ['api_v2_blocks.2025-08-11.json', 'prague'],
  ])('%s: every block\'s excess follows from its parent with the %s target', (file, fork) => {
    const byHeight = new Map(recordedBlocks(file).map((b) => [b.height, b]));
    let pairs = 0;
    for (const child of byHeight.values()) {
      const parent = byHeight.get(child.height - 1);
      if (!parent) continue;
      const params = blobParamsAt(mainnet, BigInt(Date.parse(child.timestamp) / 1000));
      expect(params.name).toBe(fork);
      const next = BigInt(parent.excess_blob_gas) + BigInt(parent.blob_gas_used) - BigInt(params.target!) * GAS_PER_BLOB;
      expect(BigInt(child.excess_blob_gas), `block ${child.height}`).toBe(next > 0n ? next : 0n);
      pairs += 1;
    }
    expect(pairs).toBeGreaterThanOrEqual(40);
  });

  it('a block at the activation second is already on the new fork', () => {
    const prague = mainnet.find((p) => p.name === 'prague')!;
    expect(blobParamsAt(mainnet, BigInt(prague.timestamp)).name).toBe('prague');
    expect(blobParamsAt(mainnet, BigInt(prague.timestamp - 1)).name).toBe('cancun');
    expect(blobParamsAt(mainnet, 10n ** 12n).baseFeeUpdateFraction).toBe(11_684_671);
  });
});

describe('which schedule a chain gets', () => {
  it('configured, else known by chain id, else EIP-4844', () => {
    const configured: BlobSchedule = [{ timestamp: 0, baseFeeUpdateFraction: 5_007_716 }];
    expect(blobScheduleFor(1, configured)).toBe(configured);
    expect(blobScheduleFor(11_155_111, null)).toBe(KNOWN_BLOB_SCHEDULES.get(11_155_111));
    expect(blobScheduleFor(424242, null)).toBe(DEFAULT_BLOB_SCHEDULE);
    expect(DEFAULT_BLOB_SCHEDULE).toEqual([expect.objectContaining({ timestamp: 0, baseFeeUpdateFraction: 3_338_477 })]);
  });
});

describe('blobSchedule in the config file', () => {
  const withFile = (chains: unknown[]) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'explorer-config-'));
    const file = path.join(dir, 'explorer.json');
    writeFileSync(file, JSON.stringify({ chains }));
    return file;
  };
  const chain = (chainId: number, blobSchedule?: unknown) => ({ chainId, rpcUrls: ['http://127.0.0.1:8545'], ...(blobSchedule === undefined ? {} : { blobSchedule }) });

  it('is read per chain; a chain without it keeps null (the known or default schedule)', () => {
    const schedule = [{ timestamp: 0, name: 'prague', baseFeeUpdateFraction: 5_007_716, target: 6, max: 9 }];
    const config = loadConfig({ config: withFile([chain(31337, schedule), chain(1)]) }, {});
    expect(config.chains.find((c) => c.chainId === 31337)?.blobSchedule).toEqual(schedule);
    expect(config.chains.find((c) => c.chainId === 1)?.blobSchedule).toBeNull();
  });

  it('a malformed schedule stops the start with a ConfigError saying what is wrong', () => {
    const bad: Array<[unknown, RegExp]> = [
      [[], /blobSchedule: expected 1 to 64 blob parameter entries/],
      [[{ timestamp: 0 }], /blobSchedule\/0: expected|baseFeeUpdateFraction/],
      [[{ timestamp: -1, baseFeeUpdateFraction: 1 }], /timestamp: expected the activation time in unix seconds/],
      [[{ timestamp: 5, baseFeeUpdateFraction: 1 }, { timestamp: 5, baseFeeUpdateFraction: 2 }], /strictly ascending/],
      [[{ timestamp: 0, baseFeeUpdateFraction: 1, fraction: 2 }], /unknown key/],
      [[{ timestamp: 0, baseFeeUpdateFraction: 1.5 }], /the update fraction/],
    ];
    for (const [value, message] of bad) {
      const file = withFile([chain(7, value)]);
      expect(() => loadConfig({ config: file }, {})).toThrow(ConfigError);
      expect(() => loadConfig({ config: file }, {})).toThrow(message);
    }
  });
});
