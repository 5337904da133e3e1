/**
 * The node's head as the pipeline plans with it. While the indexer is behind a head it already
 * knows, it does not wait for a fresh one: the question goes out in the background (at most one
 * at a time, once the known head is `maxAgeMs` old) and the known head is used meanwhile. On a
 * remote node with a request budget, eth_blockNumber queues behind the fetch stage's block
 * requests; asking it on the writer's path stalled every commit for as long as that queue
 * (1.5 s at 400 calls/s, BENCHMARKS.md "remote"). A stale head below the node's only delays
 * when newer blocks are planned; blocks are checked link by link whatever head planned them.
 */
import type { RpcClient } from '../rpc/client.js';

export class HeadPoller {
  private known: bigint | null = null;
  private knownAt = 0;
  private asking: Promise<bigint> | null = null;

  constructor(
    private readonly rpc: RpcClient,
    private readonly maxAgeMs: number,
  ) {}

  /**
   * A head at or above `next` if one is known (asking again in the background when it is old),
   * otherwise a fresh one from the node.
   */
  async atLeast(next: bigint, signal: AbortSignal): Promise<bigint> {
    if (this.known !== null && this.known >= next) {
      if (Date.now() - this.knownAt >= this.maxAgeMs) this.ask(signal).catch(() => undefined);
      return this.known;
    }
    return this.ask(signal);
  }

  /** Forgets the known head and any answer on its way: the next call asks the node anew (a block gone, a failed step). */
  forget(): void {
    this.known = null;
    this.asking = null;
  }

  private ask(signal: AbortSignal): Promise<bigint> {
    if (this.asking !== null) return this.asking;
    const asking: Promise<bigint> = this.rpc
      .getBlockNumber({ signal })
      .then((head) => {
        // an answer asked for before forget() is not the fresh head the caller wants
        if (this.asking === asking) {
          this.known = head;
          this.knownAt = Date.now();
        }
        return head;
      })
      .finally(() => {
        if (this.asking === asking) this.asking = null;
      });
    this.asking = asking;
    return asking;
  }
}
