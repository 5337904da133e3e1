import type { Hex } from '../db/rows.js';

/**
 * Addresses this process has already written to `addresses`, so that a batch sends only those
 * new to it. The insert is ON CONFLICT DO NOTHING, but each known address still cost PostgreSQL
 * a unique-index probe (~3.5 µs), and most of a batch's holders were seen in earlier batches.
 * Rows of `addresses` are never deleted (a rollback keeps them), so a remembered address stays
 * written. Bounded: two generations of at most `capacity` each, the older dropped when the newer
 * fills, so memory does not grow with the chain; a forgotten address is merely sent again.
 */
export class RecentAddresses {
  private current = new Set<Hex>();
  private previous = new Set<Hex>();

  constructor(private readonly capacity = 250_000) {}

  /** Those of `addresses` not known to be written. */
  unseen(addresses: Iterable<Hex>): Hex[] {
    const fresh: Hex[] = [];
    for (const address of addresses) {
      if (!this.current.has(address) && !this.previous.has(address)) fresh.push(address);
    }
    return fresh;
  }

  /** Only once the transaction that wrote them has committed. */
  remember(addresses: readonly Hex[]): void {
    for (const address of addresses) {
      if (this.current.size >= this.capacity) {
        this.previous = this.current;
        this.current = new Set();
      }
      this.current.add(address);
    }
  }
}
