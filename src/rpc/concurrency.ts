/**
 * Runs `fn` over `items` a round at a time: every call of a round starts together (so the
 * batching transport packs them into few HTTP exchanges) and the next round waits for it, which
 * bounds how much is in flight and buffered at once.
 */
export async function mapInRounds<T, R>(items: readonly T[], perRound: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  if (perRound < 1) throw new RangeError('perRound must be at least 1');
  const results: R[] = [];
  for (let i = 0; i < items.length; i += perRound) {
    results.push(...(await Promise.all(items.slice(i, i + perRound).map(fn))));
  }
  return results;
}
