import { getAddress } from 'viem';

// Checksumming costs a keccak per address; the same holders and miners come back page after
// page, so a bounded cache keeps it off the hot path.
const cache = new Map<string, string>();
const LIMIT = 50_000;

export function checksum(address: string): string {
  const lower = address.toLowerCase();
  let cased = cache.get(lower);
  if (cased === undefined) {
    cased = getAddress(lower);
    if (cache.size >= LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(lower, cased);
  }
  return cased;
}
