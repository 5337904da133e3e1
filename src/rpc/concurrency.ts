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

/**
 * `fn(0)` … `fn(count - 1)` with at most `concurrency` running at once, each worker taking the
 * next index as soon as its last one is done (no round waits for its slowest call); results in
 * index order.
 */
export async function mapWithConcurrency<R>(count: number, concurrency: number, fn: (index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      results[index] = await fn(index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
  return results;
}
