/**
 * What one entry costs besides its key's characters and its body's bytes: the Map slot, the
 * entry object, the key string's header, the Buffer with its ArrayBuffer, backing-store record
 * and malloc'd block. Measured on Node 20 as resident memory over 40,000 entries: 790 to 1,250
 * bytes beyond the characters, depending on key and body sizes (of which ~300 are V8 heap);
 * `page-store.test.ts` checks the heap part against what the store counts.
 */
export const ENTRY_OVERHEAD_BYTES = 1_280;

interface Entry {
  /** bytes, not the string: a hit then costs no UTF-8 encoding of the whole page */
  body: Buffer;
  /** performance.now() time after which the entry is not served */
  expires: number;
  /** what the entry counts against the budget */
  size: number;
}

/** One chain's pages, all read at the same indexed block. */
interface Bucket {
  block: bigint | null;
  /** insertion order = expiry order: every entry lives the same ttl on a monotonic clock */
  entries: Map<string, Entry>;
  bytes: number;
}

export interface PageStoreStats {
  entries: number;
  bytes: number;
}

/**
 * Serialized pages per chain, bounded by the memory they really take (key characters, body
 * bytes and a per-entry overhead all count against `maxBytes`) and never older than `ttlMs` or
 * than the chain's indexed block: a chain whose block moved loses all its pages at once, and
 * expired pages leave on every store and on `sweep()` (a timer in the plugin), not only when
 * they are asked for again.
 */
export class PageStore {
  private readonly buckets = new Map<number, Bucket>();
  private bytes = 0;
  private count = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxBytes: number,
  ) {}

  /** The hot path: a Map probe, a block compare and a clock compare. */
  get(chainId: number, block: bigint | null, key: string, now: number): Buffer | undefined {
    const bucket = this.buckets.get(chainId);
    if (bucket === undefined) return undefined;
    if (bucket.block !== block) {
      this.dropBucket(chainId, bucket);
      return undefined;
    }
    const entry = bucket.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires > now) return entry.body;
    this.remove(bucket, key, entry);
    return undefined;
  }

  set(chainId: number, block: bigint | null, key: string, payload: string, now: number): void {
    const length = Buffer.byteLength(payload);
    // Two bytes per key character: V8 keeps a key with any non-Latin-1 character in UTF-16.
    const size = ENTRY_OVERHEAD_BYTES + 2 * key.length + length;
    if (size > this.maxBytes) return;
    let bucket = this.buckets.get(chainId);
    if (bucket !== undefined && bucket.block !== block) {
      this.dropBucket(chainId, bucket);
      bucket = undefined;
    }
    if (bucket === undefined) {
      bucket = { block, entries: new Map(), bytes: 0 };
      this.buckets.set(chainId, bucket);
    }
    const existing = bucket.entries.get(key);
    if (existing !== undefined) this.remove(bucket, key, existing);
    // A store of its own: a small Buffer.from() is a slice of a shared 8 KB pool, and one kept
    // slice would keep its whole pool alive.
    const body = Buffer.allocUnsafeSlow(length);
    body.write(payload);
    bucket.entries.set(flat(key), { body, expires: now + this.ttlMs, size });
    bucket.bytes += size;
    this.bytes += size;
    this.count++;
    this.sweep(now);
    while (this.bytes > this.maxBytes) this.evictOldest();
  }

  /** Drops every expired entry: from the front of each chain's map, where the oldest are. */
  sweep(now: number): void {
    for (const [chainId, bucket] of this.buckets) {
      for (const [key, entry] of bucket.entries) {
        if (entry.expires > now) break;
        this.remove(bucket, key, entry);
      }
      if (bucket.entries.size === 0) this.buckets.delete(chainId);
    }
  }

  stats(): PageStoreStats {
    return { entries: this.count, bytes: this.bytes };
  }

  /** The entry stored first over all chains: the one that expires first. */
  private evictOldest(): void {
    let oldest: { bucket: Bucket; key: string; entry: Entry } | undefined;
    for (const bucket of this.buckets.values()) {
      const first = bucket.entries.entries().next();
      if (first.done) continue;
      const [key, entry] = first.value;
      if (oldest === undefined || entry.expires < oldest.entry.expires) oldest = { bucket, key, entry };
    }
    if (oldest === undefined) return;
    this.remove(oldest.bucket, oldest.key, oldest.entry);
  }

  private remove(bucket: Bucket, key: string, entry: Entry): void {
    bucket.entries.delete(key);
    bucket.bytes -= entry.size;
    this.bytes -= entry.size;
    this.count--;
  }

  /** O(1): the whole map goes to the collector at once. */
  private dropBucket(chainId: number, bucket: Bucket): void {
    this.bytes -= bucket.bytes;
    this.count -= bucket.entries.size;
    this.buckets.delete(chainId);
  }
}

/**
 * A key built from parts of the request holds on to them: V8 keeps a concatenation as a tree
 * of its parts, and a parsed query value as a view into the whole URL. A JSON round trip makes
 * a copy that shares nothing with the request (and keeps every character, lone surrogates too).
 */
function flat(key: string): string {
  return JSON.parse(JSON.stringify(key)) as string;
}
