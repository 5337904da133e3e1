import type { Hex } from '../db/rows.js';
import type { Reward } from '../db/model/block.js';
import { REWARD_TYPE } from './traces.js';

export interface UncleHeader {
  hash: Hex;
  number: bigint;
  miner: Hex;
}

export interface UncleReward {
  miner: Hex;
  /** the uncle's place in the including block's uncle list */
  position: number;
  /** wei paid to the uncle's miner for this uncle */
  reward: bigint;
}

export interface UncleRewards {
  uncles: UncleReward[];
  /** what the including block's miner earned for including them (base/32 each) */
  inclusionReward: bigint;
}

/**
 * Splits an including block's `uncle` reward entries into one reward per uncle, and derives
 * the inclusion reward, from the protocol's rules (yellow paper §11.3): an uncle of depth
 * d = B − U earns base × (8 − d) / 8 and its includer base / 32. The traces credit uncle rewards
 * per recipient, so two uncles of one miner arrive as one entry: its base is
 * 8 × entry / Σ (8 − dᵢ) over that miner's uncles. The base is not stored (it changed with
 * Byzantium and Constantinople), so it is read back from the entries; without any (a node
 * without traces) every amount is 0.
 */
export function uncleRewards(includingNumber: bigint, uncleHashes: readonly Hex[], headers: readonly UncleHeader[], rewards: readonly Reward[]): UncleRewards {
  const byHash = new Map(headers.map((h) => [h.hash.toLowerCase(), h]));
  const placed = uncleHashes.flatMap((hash, position) => {
    const header = byHash.get(hash.toLowerCase());
    return header ? [{ header, position, weight: 8n - (includingNumber - header.number) }] : [];
  });
  const paid = new Map<string, bigint>();
  for (const r of rewards) {
    if (r.type === REWARD_TYPE.uncle) paid.set(r.address.toLowerCase(), (paid.get(r.address.toLowerCase()) ?? 0n) + r.reward);
  }
  const weights = new Map<string, bigint>();
  for (const p of placed) weights.set(p.header.miner.toLowerCase(), (weights.get(p.header.miner.toLowerCase()) ?? 0n) + p.weight);
  const baseOf = (miner: string): bigint => {
    const weight = weights.get(miner) ?? 0n;
    return weight > 0n ? (8n * (paid.get(miner) ?? 0n)) / weight : 0n;
  };
  const uncles = placed.map((p) => {
    const miner = p.header.miner.toLowerCase() as Hex;
    return { miner, position: p.position, reward: (baseOf(miner) * p.weight) / 8n };
  });
  // every uncle of the block shares one base: any miner's entry gives it
  const base = uncles.map((u) => baseOf(u.miner)).find((b) => b > 0n) ?? 0n;
  return { uncles, inclusionReward: (base * BigInt(uncleHashes.length)) / 32n };
}
