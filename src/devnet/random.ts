/**
 * Seeded randomness for generated chains and fault injection: the same seed gives the same chain,
 * so a failing test or a benchmark run can be reproduced exactly.
 */
import { getAddress, keccak256, stringToHex, type Address } from 'viem';

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

/** String seeds are hashed (FNV-1a) so any label can serve as a seed. */
function seedToUint32(seed: number | string): number {
  if (typeof seed === 'number') return seed >>> 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) {
    h ^= seed.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: tiny, fast, and good enough for test data (not for anything adversarial). */
export function createRng(seed: number | string = 1): Rng {
  let a = seedToUint32(seed);
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    next,
    int,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[int(items.length)]!;
    },
    chance: (p: number) => next() < p,
  };
}

/** Fisher–Yates shuffle into a new array. */
export function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * Sampler over [0, n) with P(i) ∝ 1 / (i + 1)^s: a few very popular items and a long tail, the
 * shape of real token popularity and account activity.
 */
export function zipf(n: number, s: number, rng: Rng): () => number {
  if (n <= 0) throw new Error('zipf over an empty range');
  const cdf = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    total += 1 / Math.pow(i + 1, s);
    cdf[i] = total;
  }
  return () => {
    const target = rng.next() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/**
 * Pareto-distributed amount in base units: `minimum * U^(-1/alpha)`, capped at 10^6 × minimum so a
 * single draw cannot dwarf everything else. alpha ≈ 1.16 is the 80/20 rule.
 */
export function paretoAmount(rng: Rng, minimum: bigint, alpha = 1.16): bigint {
  const factor = Math.min(Math.pow(1 - rng.next(), -1 / alpha), 1e6);
  // Six decimal digits of the factor survive the conversion to bigint.
  return (minimum * BigInt(Math.round(factor * 1e6))) / 1_000_000n;
}

/** A stable, key-less address for `label` and `index` (e.g. the i-th holder of a generated chain). */
export function deriveAddress(label: string, index: number): Address {
  return getAddress(`0x${keccak256(stringToHex(`${label}:${index}`)).slice(26)}`);
}
