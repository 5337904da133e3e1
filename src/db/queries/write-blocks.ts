import type { Queryable } from '../client.js';
import type { BlockRow } from '../rows.js';
import { hexArray } from '../hex.js';

const text = (v: bigint | null) => (v === null ? null : v.toString());

/**
 * Inserts (or replaces, by hash) blocks in one statement. A block re-seen after a reorg
 * is written again with its new consensus flag.
 */
export async function upsertBlocks(db: Queryable, blocks: readonly BlockRow[]): Promise<void> {
  if (blocks.length === 0) return;
  await db.query(
    `INSERT INTO blocks (chain_id, hash, number, parent_hash, nonce, timestamp, miner, size, difficulty,
       total_difficulty, gas_limit, gas_used, base_fee_per_gas, burnt_fees, priority_fee, transaction_fees,
       transactions_count, internal_transactions_count, withdrawals_count, rewards, uncle_hashes, consensus,
       is_uncle, arbitrum)
     SELECT u.chain_id, decode(u.hash, 'hex'), u.number, decode(u.parent_hash, 'hex'), decode(u.nonce, 'hex'),
       u.timestamp, decode(u.miner, 'hex'), u.size, u.difficulty, u.total_difficulty, u.gas_limit, u.gas_used,
       u.base_fee_per_gas, u.burnt_fees, u.priority_fee, u.transaction_fees, u.transactions_count,
       u.internal_transactions_count, u.withdrawals_count, u.rewards::jsonb, u.uncle_hashes::jsonb, u.consensus,
       u.is_uncle, u.arbitrum::jsonb
     FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::bigint[], $7::text[],
       $8::bigint[], $9::numeric[], $10::numeric[], $11::numeric[], $12::numeric[], $13::numeric[], $14::numeric[],
       $15::numeric[], $16::numeric[], $17::int[], $18::int[], $19::int[], $20::text[], $21::text[], $22::bool[],
       $23::bool[], $24::text[])
       AS u(chain_id, hash, number, parent_hash, nonce, timestamp, miner, size, difficulty, total_difficulty,
         gas_limit, gas_used, base_fee_per_gas, burnt_fees, priority_fee, transaction_fees, transactions_count,
         internal_transactions_count, withdrawals_count, rewards, uncle_hashes, consensus, is_uncle, arbitrum)
     ON CONFLICT (chain_id, hash) DO UPDATE SET consensus = excluded.consensus, is_uncle = excluded.is_uncle,
       internal_transactions_count = excluded.internal_transactions_count, rewards = excluded.rewards`,
    [
      blocks.map((b) => b.chainId),
      hexArray(blocks.map((b) => b.hash)),
      blocks.map((b) => b.number.toString()),
      hexArray(blocks.map((b) => b.parentHash)),
      hexArray(blocks.map((b) => b.nonce)),
      blocks.map((b) => b.timestamp.toString()),
      hexArray(blocks.map((b) => b.miner)),
      blocks.map((b) => b.size.toString()),
      blocks.map((b) => b.difficulty.toString()),
      blocks.map((b) => text(b.totalDifficulty)),
      blocks.map((b) => b.gasLimit.toString()),
      blocks.map((b) => b.gasUsed.toString()),
      blocks.map((b) => text(b.baseFeePerGas)),
      blocks.map((b) => b.burntFees.toString()),
      blocks.map((b) => b.priorityFee.toString()),
      blocks.map((b) => b.transactionFees.toString()),
      blocks.map((b) => b.transactionsCount),
      blocks.map((b) => b.internalTransactionsCount),
      blocks.map((b) => b.withdrawalsCount),
      blocks.map((b) =>
        JSON.stringify(b.rewards.map((r) => ({ reward: r.reward.toString(), type: r.type, address_hash: r.address.toLowerCase() }))),
      ),
      blocks.map((b) => JSON.stringify(b.uncleHashes)),
      blocks.map((b) => b.consensus),
      blocks.map((b) => b.isUncle),
      blocks.map((b) => (b.arbitrum ? JSON.stringify(b.arbitrum) : null)),
    ],
  );
}
