/**
 * A chain's blob schedule (EIP-7840 / EIP-7892): the blob parameters in force from each fork on,
 * by activation timestamp. Only the update fraction (and the minimum fee) shape a block's blob
 * gas price; target and max are kept because they date the forks in recorded data (the excess
 * moves by `used − target` per block).
 *
 * Ethereum mainnet and the public testnets are known here; any other chain takes EIP-4844's
 * original parameters unless its config sets `blobSchedule` (README, "Configuration").
 */
import { Type } from '@sinclair/typebox';
import { ConfigError, type Kind } from './setting.js';

export interface BlobParams {
  /** unix seconds at which these parameters take effect */
  timestamp: number;
  /** the fork's name, for people; not used in the arithmetic */
  name?: string;
  baseFeeUpdateFraction: number;
  /** target and max blobs per block, where known */
  target?: number;
  max?: number;
  /** MIN_BASE_FEE_PER_BLOB_GAS in wei; EIP-4844's 1 unless a chain changed it */
  minBaseFeePerBlobGas?: number;
}

/** Ascending by timestamp. */
export type BlobSchedule = readonly BlobParams[];

const CANCUN = { name: 'cancun', target: 3, max: 6, baseFeeUpdateFraction: 3_338_477 };
const PRAGUE = { name: 'prague', target: 6, max: 9, baseFeeUpdateFraction: 5_007_716 };
// Osaka keeps Prague's parameters; the blob-parameter-only forks (EIP-7892) raise them.
const OSAKA = { ...PRAGUE, name: 'osaka' };
const BPO1 = { name: 'bpo1', target: 10, max: 15, baseFeeUpdateFraction: 8_346_193 };
const BPO2 = { name: 'bpo2', target: 14, max: 21, baseFeeUpdateFraction: 11_684_671 };

function ethereumSchedule(times: { cancun: number; prague: number; osaka: number; bpo1: number; bpo2: number }): BlobSchedule {
  return [
    { timestamp: times.cancun, ...CANCUN },
    { timestamp: times.prague, ...PRAGUE },
    { timestamp: times.osaka, ...OSAKA },
    { timestamp: times.bpo1, ...BPO1 },
    { timestamp: times.bpo2, ...BPO2 },
  ];
}

/** Activation times as the networks' client configurations publish them. */
export const KNOWN_BLOB_SCHEDULES: ReadonlyMap<number, BlobSchedule> = new Map([
  [1, ethereumSchedule({ cancun: 1_710_338_135, prague: 1_746_612_311, osaka: 1_764_798_551, bpo1: 1_765_290_071, bpo2: 1_767_747_671 })],
  [11_155_111, ethereumSchedule({ cancun: 1_706_655_072, prague: 1_741_159_776, osaka: 1_760_427_360, bpo1: 1_761_017_184, bpo2: 1_761_607_008 })],
  [17_000, ethereumSchedule({ cancun: 1_707_305_664, prague: 1_740_434_112, osaka: 1_759_308_480, bpo1: 1_759_800_000, bpo2: 1_760_389_824 })],
  [560_048, ethereumSchedule({ cancun: 0, prague: 1_742_999_832, osaka: 1_761_677_592, bpo1: 1_762_365_720, bpo2: 1_762_955_544 })],
]);

/** EIP-4844 as written, for chains nobody told us about. */
export const DEFAULT_BLOB_SCHEDULE: BlobSchedule = [{ timestamp: 0, ...CANCUN }];

/** The configured schedule, else the known one for the chain, else EIP-4844's. */
export function blobScheduleFor(chainId: number, configured: BlobSchedule | null | undefined): BlobSchedule {
  return configured ?? KNOWN_BLOB_SCHEDULES.get(chainId) ?? DEFAULT_BLOB_SCHEDULE;
}

/**
 * The parameters in force at a block's timestamp (the block's own time decides, as clients
 * compute BLOBBASEFEE); a block older than the first entry gets the first.
 */
export function blobParamsAt(schedule: BlobSchedule, timestamp: bigint): BlobParams {
  let current = schedule[0]!;
  for (const params of schedule) {
    if (BigInt(params.timestamp) > timestamp) break;
    current = params;
  }
  return current;
}

const MAX_ENTRIES = 64;
const count = (what: string, minimum: number) =>
  Type.Integer({ minimum, maximum: Number.MAX_SAFE_INTEGER, errorMessage: `${what} (an integer ≥ ${minimum})` });

/** One entry of the config's `blobSchedule`. */
const BlobParamsEntry = Type.Object(
  {
    timestamp: count('the activation time in unix seconds', 0),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 40, errorMessage: 'a fork name of at most 40 characters' })),
    baseFeeUpdateFraction: count('the update fraction', 1),
    target: Type.Optional(count('blobs per block', 0)),
    max: Type.Optional(count('blobs per block', 0)),
    minBaseFeePerBlobGas: Type.Optional(count('wei', 1)),
  },
  { additionalProperties: false },
);

/** The `blobSchedule` setting's shape in the config file and its check (ascending timestamps). */
export const blobScheduleKind: Kind<BlobSchedule | null> = {
  schema: Type.Array(BlobParamsEntry, { minItems: 1, maxItems: MAX_ENTRIES, errorMessage: `1 to ${MAX_ENTRIES} blob parameter entries` }),
  // a JSON array as text (the setting has no flag or variable; the file gives it)
  fromText: (text) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  },
  toValue: (entries: BlobParams[]) => {
    entries.forEach((entry, i) => {
      if (i > 0 && entry.timestamp <= entries[i - 1]!.timestamp) {
        throw new ConfigError(`blobSchedule: timestamps must be strictly ascending (entry ${i}: ${entry.timestamp} after ${entries[i - 1]!.timestamp})`);
      }
    });
    return entries.map((e) => ({ ...e }));
  },
};
