import type { Queryable } from '../db/client.js';
import { listChains, type ChainStatus } from '../db/queries/chains.js';
import { listRestrictedAddresses } from '../db/queries/restricted.js';
import type { Hex } from '../db/rows.js';

/** What /health judges: the last read, how old it is, and how the read under way is doing. */
export interface RegistryRead {
  chains: ChainStatus[];
  /** how old that read is */
  ageMs: number;
  /** the last read's error, until a read succeeds */
  failure: unknown;
  /** how long the read under way has waited for the database; 0 when none is under way */
  waitingMs: number;
}

/**
 * What every request needs to know and that changes rarely (the served chains, the
 * restricted list): read from the database at most every `ttlMs`, so the request path costs
 * no extra query and a change made by another process shows up within seconds. Requests wait
 * for a due read (a restriction or an indexed block is never older than that); `/health` waits
 * a bounded time (`lastRead`): with every connection busy the read waits its turn, and
 * `/health` says so instead of waiting with it.
 */
export class Registry {
  private chains = new Map<number, ChainStatus>();
  private restricted = new Set<string>();
  private loadedAt = 0;
  private loading: Promise<void> | null = null;
  private loadingSince = 0;
  private failure: unknown = null;

  constructor(
    private readonly db: Queryable,
    private readonly configRestricted: readonly string[],
    private readonly ttlMs = 2_000,
  ) {}

  private async refresh(): Promise<void> {
    try {
      const [chains, restricted] = await Promise.all([listChains(this.db), listRestrictedAddresses(this.db)]);
      this.chains = new Map(chains.map((c) => [c.chainId, c]));
      this.restricted = new Set([
        ...this.configRestricted.map((a) => a.toLowerCase()),
        ...restricted.map((r) => `${r.chainId}:${r.address}`),
      ]);
      this.loadedAt = Date.now();
      this.failure = null;
    } catch (error) {
      this.failure = error;
      throw error;
    }
  }

  /**
   * A promise only when a read is due (it starts it): the request path then costs no await at
   * all, and reads with chainNow / anyRestrictedNow.
   */
  due(): Promise<void> | null {
    if (Date.now() - this.loadedAt < this.ttlMs) return null;
    if (this.loading === null) {
      this.loadingSince = Date.now();
      this.loading = this.refresh().finally(() => {
        this.loading = null;
      });
      // (/health may stop waiting for the read: its failure is kept for it, not thrown at it)
      this.loading.catch(() => undefined);
    }
    return this.loading;
  }

  /**
   * The chains for /health. A due read is waited for until it has been under way for
   * `waitMs(age)` (`age`: how old the last read is), then what was read last is answered, with
   * its age and how long the read under way has waited. Only the first read is waited for whole.
   */
  async lastRead(waitMs: (ageMs: number) => number): Promise<RegistryRead> {
    const refresh = this.due();
    if (refresh && this.loadedAt === 0) await refresh;
    else if (refresh) {
      const left = waitMs(Date.now() - this.loadedAt) - (Date.now() - this.loadingSince);
      if (left > 0) {
        let timer: NodeJS.Timeout | undefined;
        const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, left)));
        await Promise.race([refresh.catch(() => undefined), waited]);
        clearTimeout(timer);
      }
    }
    return {
      chains: [...this.chains.values()],
      ageMs: Date.now() - this.loadedAt,
      failure: this.failure,
      waitingMs: this.loading === null ? 0 : Date.now() - this.loadingSince,
    };
  }

  async chain(chainId: number): Promise<ChainStatus | undefined> {
    const refresh = this.due();
    if (refresh) await refresh;
    return this.chainNow(chainId);
  }

  /** The chain as last read: for callers that waited for due() first. */
  chainNow(chainId: number): ChainStatus | undefined {
    return this.chains.get(chainId);
  }

  /** Whether any of `addresses` is restricted on the chain, as last read (after due()). */
  anyRestrictedNow(chainId: number, addresses: readonly string[]): boolean {
    return addresses.some((address) => this.restrictedNow(chainId, address));
  }

  /** The addresses restricted on the chain (everywhere or on it alone), lowercase. */
  async restrictedOn(chainId: number): Promise<Hex[]> {
    const refresh = this.due();
    if (refresh) await refresh;
    const own = `${chainId}:`;
    const out: Hex[] = [];
    for (const entry of this.restricted) {
      if (!entry.includes(':')) out.push(entry as Hex);
      else if (entry.startsWith(own)) out.push(entry.slice(own.length) as Hex);
      else if (entry.startsWith('0:')) out.push(entry.slice(2) as Hex);
    }
    return out;
  }

  private restrictedNow(chainId: number, address: string): boolean {
    const a = address.toLowerCase();
    return this.restricted.has(a) || this.restricted.has(`0:${a}`) || this.restricted.has(`${chainId}:${a}`);
  }
}
