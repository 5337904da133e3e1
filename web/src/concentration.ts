import { shareHundredths } from './format.js';

export interface TopShare {
  /** number of largest holders summed */
  count: number;
  /** their share of the total supply, in hundredths of a percent */
  hundredths: bigint;
}

/**
 * Shares of supply held by the 1, 10 and 100 largest holders, from balances in descending
 * order. A tier is given only when that many holders are loaded.
 */
export function topShares(values: readonly bigint[], supply: bigint | null, tiers: readonly number[] = [1, 10, 100]): TopShare[] {
  const out: TopShare[] = [];
  for (const count of tiers) {
    if (values.length < count) break;
    const sum = values.slice(0, count).reduce((a, b) => a + b, 0n);
    const hundredths = shareHundredths(sum, supply);
    if (hundredths === null) break;
    out.push({ count, hundredths });
  }
  return out;
}

/** Cumulative share of supply (percent, 0–100) held by the top k holders, for k = 1…n. */
export function cumulativeShares(values: readonly bigint[], supply: bigint | null): number[] {
  if (supply === null || supply <= 0n) return [];
  let sum = 0n;
  return values.map((v) => {
    sum += v;
    return Number((sum * 1_000_000n) / supply) / 10_000;
  });
}
