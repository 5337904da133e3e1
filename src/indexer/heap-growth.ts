import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what the last full collection kept, in percent,
 * while indexing. By default V8 picks a factor up to 4× when allocation is fast and collection
 * cheap, which is what indexing is: every fetched block lives long enough to be promoted and then
 * dies. With 80–100 MB live the heap reached 280–435 MB before a full collection, and that garbage
 * was most of the indexer's peak RSS (BENCHMARKS.md, memory). At 1.5× the peak follows the live
 * set, which the fetch window and the range size bound; the extra full collections cost no
 * measurable rate (7–25 ms each, about every second).
 */
export const HEAP_GROWING_PERCENT = 50;

let applied = false;

/** Process-wide, once: the indexer and the API server (cli/commands/serve.ts) both ask for it, and share a process under `explorer start`. */
export function boundHeapGrowth(): void {
  if (applied) return;
  applied = true;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
