import type { Queryable } from '../client.js';
import type { ArbitrumBlockFields, Hex } from '../rows.js';
import { fromHexText, toBytea } from '../hex.js';
import { addressLateralJoin, addressSelectColumns, readAddress, type AddressInfo, type AddressRowColumns } from './address-columns.js';

export interface ValidatedBlock {
  hash: Hex;
  number: bigint;
  parentHash: Hex;
  nonce: Hex;
  timestamp: bigint;
  miner: AddressInfo;
  size: bigint;
  difficulty: bigint;
  totalDifficulty: bigint | null;
  gasLimit: bigint;
  gasUsed: bigint;
  baseFeePerGas: bigint | null;
  burntFees: bigint;
  priorityFee: bigint;
  transactionFees: bigint;
  transactionsCount: number;
  internalTransactionsCount: number | null;
  withdrawalsCount: number | null;
  rewards: { reward: string; type: string; address_hash: string }[];
  uncleHashes: Hex[];
  type: 'block' | 'uncle' | 'reorg';
  arbitrum: ArbitrumBlockFields | null;
}

interface BlockColumns extends AddressRowColumns {
  hash: string;
  number: string;
  parent_hash: string;
  nonce: string;
  timestamp: string;
  miner: string;
  size: string;
  difficulty: string;
  total_difficulty: string | null;
  gas_limit: string;
  gas_used: string;
  base_fee_per_gas: string | null;
  burnt_fees: string;
  priority_fee: string;
  transaction_fees: string;
  transactions_count: number;
  internal_transactions_count: number | null;
  withdrawals_count: number | null;
  rewards: unknown;
  uncle_hashes: unknown;
  consensus: boolean;
  is_uncle: boolean;
  arbitrum: unknown;
}

const big = (v: string): bigint => BigInt(v);
const bigOrNull = (v: string | null): bigint | null => (v === null ? null : BigInt(v));
const json = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));

/** The page statement, exported so tests can EXPLAIN exactly what the API runs. */
export function blocksValidatedPageQuery(params: { chainId: number; miner: Hex; beforeNumber: bigint | null; limit: number }) {
  const args: unknown[] = [params.chainId, toBytea(params.miner), params.limit];
  let keyset = '';
  if (params.beforeNumber !== null) {
    args.push(params.beforeNumber.toString());
    keyset = 'AND b.number < $4::bigint';
  }
  const text = `SELECT encode(b.hash, 'hex') AS hash, b.number::text AS number, encode(b.parent_hash, 'hex') AS parent_hash,
            encode(b.nonce, 'hex') AS nonce, b.timestamp::text AS timestamp, encode(b.miner, 'hex') AS miner,
            b.size::text AS size, b.difficulty::text AS difficulty, b.total_difficulty::text AS total_difficulty,
            b.gas_limit::text AS gas_limit, b.gas_used::text AS gas_used, b.base_fee_per_gas::text AS base_fee_per_gas,
            b.burnt_fees::text AS burnt_fees, b.priority_fee::text AS priority_fee,
            b.transaction_fees::text AS transaction_fees, b.transactions_count, b.internal_transactions_count,
            b.withdrawals_count, b.rewards, b.uncle_hashes, b.consensus, b.is_uncle, b.arbitrum,
            ${addressSelectColumns}
     FROM blocks b
     ${addressLateralJoin('b.miner', '$1')}
     WHERE b.chain_id = $1 AND b.miner = $2 ${keyset}
     ORDER BY b.number DESC
     LIMIT $3`;
  return { text, args };
}

/** One page of blocks mined by an address, newest first: a range scan of blocks_by_miner. */
export async function blocksValidatedPage(
  db: Queryable,
  params: { chainId: number; miner: Hex; beforeNumber: bigint | null; limit: number },
): Promise<ValidatedBlock[]> {
  const { text, args } = blocksValidatedPageQuery(params);
  const rows = await db.query<BlockColumns>(text, args, { prepare: true });
  return rows.map((r) => ({
    hash: fromHexText(r.hash),
    number: big(r.number),
    parentHash: fromHexText(r.parent_hash),
    nonce: fromHexText(r.nonce),
    timestamp: big(r.timestamp),
    miner: readAddress(r.miner, r),
    size: big(r.size),
    difficulty: big(r.difficulty),
    totalDifficulty: bigOrNull(r.total_difficulty),
    gasLimit: big(r.gas_limit),
    gasUsed: big(r.gas_used),
    baseFeePerGas: bigOrNull(r.base_fee_per_gas),
    burntFees: big(r.burnt_fees),
    priorityFee: big(r.priority_fee),
    transactionFees: big(r.transaction_fees),
    transactionsCount: r.transactions_count,
    internalTransactionsCount: r.internal_transactions_count,
    withdrawalsCount: r.withdrawals_count,
    rewards: json(r.rewards),
    uncleHashes: json(r.uncle_hashes),
    type: r.consensus ? 'block' : r.is_uncle ? 'uncle' : 'reorg',
    arbitrum: json(r.arbitrum),
  }));
}
