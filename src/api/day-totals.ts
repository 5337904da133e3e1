import type { Queryable } from '../db/client.js';
import { DAY_SECONDS, dayBuckets, recentStats, type ChainStats, type DayBucket, type Tip } from '../db/queries/chain-stats.js';

/** One chain's kept day: its consensus blocks since `since`, up to `tip`, added up per timestamp. */
interface ChainDay {
  tip: Tip;
  /** the window start the buckets were read with: none older is held */
  since: bigint;
  /** ascending by timestamp; `head` is the first still in use (dropped ones are cut in batches) */
  buckets: DayBucket[];
  head: number;
  transactions: bigint;
  gas: bigint;
}

/**
 * `/stats`'s "today" sums, kept per chain instead of summed over 24 hours of blocks per request.
 * Each request reads the tip and the database's clock with the recent averages (a few index
 * probes); when the tip moved, only the blocks above the one held are read (one indexed block's
 * worth) and added; the buckets that fell out of the 24 hours are dropped. The answer is the
 * one the whole sum gives for that tip and that clock reading. The chain below a tip is named by
 * the tip's hash: when the held tip is no longer consensus (a reorg) or the clock went back past
 * what was dropped, the day is read again whole. Memory: one bucket per distinct timestamp from
 * 24 hours ago on, whatever the block rate: 86,401 per chain at most unless blocks are stamped in
 * the future.
 */
export class DayTotals {
  private readonly days = new Map<number, ChainDay>();
  /** one update per chain at a time: two requests must not add the same blocks twice */
  private readonly queues = new Map<number, Promise<unknown>>();

  constructor(private readonly db: Queryable) {}

  stats(chainId: number): Promise<ChainStats> {
    const run = (this.queues.get(chainId) ?? Promise.resolve()).then(() => this.read(chainId));
    const settled = run.catch(() => undefined);
    this.queues.set(chainId, settled);
    void settled.then(() => {
      if (this.queues.get(chainId) === settled) this.queues.delete(chainId);
    });
    return run;
  }

  private async read(chainId: number): Promise<ChainStats> {
    const { now, tip, ...recent } = await recentStats(this.db, chainId);
    if (tip === null) {
      this.days.delete(chainId);
      return { ...recent, transactionsToday: 0n, gasUsedToday: 0n };
    }
    const since = now - DAY_SECONDS;
    const day = await this.advance(chainId, tip, since);
    if (day === null) {
      // the tip changed between the two statements: this request's answer from the whole day, nothing kept
      const whole = await dayBuckets(this.db, chainId, null, tip, since);
      return { ...recent, ...sum(whole.buckets) };
    }
    dropBefore(day, since);
    return { ...recent, transactionsToday: day.transactions, gasUsedToday: day.gas };
  }

  /** The chain's day brought up to `tip`, or null when `tip` is no longer consensus. */
  private async advance(chainId: number, tip: Tip, since: bigint): Promise<ChainDay | null> {
    let day = this.days.get(chainId);
    if (day && day.tip.number === tip.number && day.tip.hash === tip.hash && since >= day.since) return day;
    const extendable = day !== undefined && tip.number >= day.tip.number && since >= day.since;
    let read = await dayBuckets(this.db, chainId, extendable ? day!.tip : null, tip, since);
    if (!read.fromHolds) {
      day = undefined;
      read = await dayBuckets(this.db, chainId, null, tip, since);
    }
    if (!read.toHolds) {
      this.days.delete(chainId);
      return null;
    }
    if (!extendable || !day) {
      day = { tip, since, buckets: [], head: 0, transactions: 0n, gas: 0n };
      this.days.set(chainId, day);
    }
    add(day, read.buckets);
    day.tip = tip;
    return day;
  }
}

function sum(buckets: readonly DayBucket[]): { transactionsToday: bigint; gasUsedToday: bigint } {
  let transactionsToday = 0n;
  let gasUsedToday = 0n;
  for (const b of buckets) {
    transactionsToday += b.transactions;
    gasUsedToday += b.gas;
  }
  return { transactionsToday, gasUsedToday };
}

function add(day: ChainDay, buckets: readonly DayBucket[]): void {
  let ordered = true;
  for (const b of buckets) {
    const last = day.buckets.length > day.head ? day.buckets[day.buckets.length - 1]! : undefined;
    if (last && last.timestamp === b.timestamp) {
      last.transactions += b.transactions;
      last.gas += b.gas;
    } else {
      if (last && last.timestamp > b.timestamp) ordered = false;
      day.buckets.push({ ...b });
    }
    day.transactions += b.transactions;
    day.gas += b.gas;
  }
  // a chain whose newer block has an older timestamp: rare, so sorting then is enough
  if (!ordered) {
    day.buckets = mergeSorted(day.buckets.slice(day.head));
    day.head = 0;
  }
}

function mergeSorted(buckets: DayBucket[]): DayBucket[] {
  buckets.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
  const merged: DayBucket[] = [];
  for (const b of buckets) {
    const last = merged[merged.length - 1];
    if (last && last.timestamp === b.timestamp) {
      last.transactions += b.transactions;
      last.gas += b.gas;
    } else merged.push(b);
  }
  return merged;
}

function dropBefore(day: ChainDay, since: bigint): void {
  while (day.head < day.buckets.length && day.buckets[day.head]!.timestamp < since) {
    const b = day.buckets[day.head++]!;
    day.transactions -= b.transactions;
    day.gas -= b.gas;
  }
  day.since = since > day.since ? since : day.since;
  // cut the dropped ones once they are half the array, so the array stays within a day's buckets
  if (day.head > 1024 && day.head * 2 > day.buckets.length) {
    day.buckets = day.buckets.slice(day.head);
    day.head = 0;
  }
}
