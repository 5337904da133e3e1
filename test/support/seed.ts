import { keccak256, toHex } from 'viem';
import type { Queryable } from '../../src/db/client.js';
import type { Hex, TokenRow } from '../../src/db/rows.js';
import type { BlockRow } from '../../src/db/model/block.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { upsertTokens } from '../../src/db/queries/write-tokens.js';

/** A deterministic, distinct address for index i (not sorted in i order). */
export function addressOf(i: number, salt = 'holder'): Hex {
  return keccak256(toHex(`${salt}:${i}`)).slice(0, 42) as Hex;
}

export function hashOf(i: number, salt = 'block'): Hex {
  return keccak256(toHex(`${salt}:${i}`));
}

/** A block with realistic post-London values; fees consistent with the formulas. */
export function blockRow(chainId: number, number: number, miner: Hex, overrides: Partial<BlockRow> = {}): BlockRow {
  const gasLimit = 30_000_000n;
  const gasUsed = BigInt(1_000_000 + ((number * 7919) % 28_000_000));
  const baseFee = 1_000_000_000n + BigInt(number % 1000);
  const burnt = gasUsed * baseFee;
  const priority = gasUsed * 1_500_000n;
  return {
    chainId,
    number: BigInt(number),
    hash: hashOf(number, `block:${chainId}`),
    parentHash: hashOf(number - 1, `block:${chainId}`),
    nonce: '0x0000000000000000',
    timestamp: 1_700_000_000n + BigInt(number) * 12n,
    miner,
    size: 1234n,
    difficulty: 0n,
    totalDifficulty: 58_750_003_716_598_352_816_469n,
    gasLimit,
    gasUsed,
    baseFeePerGas: baseFee,
    burntFees: burnt,
    priorityFee: priority,
    transactionFees: burnt + priority,
    transactionsCount: 10,
    internalTransactionsCount: null,
    withdrawalsCount: 16,
    rewards: [{ reward: priority, type: 'validator', address: miner }],
    uncleHashes: [],
    // a post-Cancun block: one blob per blob transaction
    blobGasUsed: 131_072n * BigInt(number % 3),
    excessBlobGas: 393_216n * BigInt(number % 7),
    blobTransactionsCount: number % 3,
    consensus: true,
    isUncle: false,
    headerOnly: false,
    chainFields: null,
    ...overrides,
  };
}

export async function countRows(db: Queryable, table: string): Promise<number> {
  const rows = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table}`);
  return Number(rows[0]!.n);
}

/** A token for {@link seedChainTokens}: its address and standard, metadata null unless given. */
export type SeedToken = Pick<TokenRow, 'address' | 'type'> & Partial<Omit<TokenRow, 'chainId' | 'address' | 'type'>>;

/** The chain's row and its tokens, as a suite over hand-made rows starts. */
export async function seedChainTokens(db: Queryable, chainId: number, tokens: readonly SeedToken[]): Promise<void> {
  await ensureChain(db, chainId);
  await upsertTokens(
    db,
    tokens.map((t) => ({ chainId, name: null, symbol: null, decimals: null, totalSupply: null, ...t })),
  );
}

type Ranked = { holder: string; value: bigint; tokenId?: bigint | null };
/**
 * The holders list's order, the ground truth a page is held against: value DESC, then holder
 * DESC (the bytes, so lowercase hex), then token id DESC (ERC-1155, where the pair repeats).
 */
export function byHoldersOrder(a: Ranked, b: Ranked): number {
  if (a.value !== b.value) return a.value > b.value ? -1 : 1;
  if (a.holder !== b.holder) return a.holder < b.holder ? 1 : -1;
  const [x, y] = [a.tokenId ?? 0n, b.tokenId ?? 0n];
  return x === y ? 0 : x > y ? -1 : 1;
}
