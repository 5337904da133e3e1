import { callOrNull, type BlockRef, type RpcClient } from '../rpc/client.js';
import { classifyFailure } from '../rpc/classify-failure.js';
import { DEPOSIT_TOPIC, WITHDRAWAL_TOPIC } from '../evm/token-events.js';
import { TOKEN_SELECTORS } from '../evm/token-metadata.js';
import type { RpcLog } from '../rpc/types.js';
import { hexByteLength } from '../evm/hex.js';
import type { Hex } from '../db/rows.js';

/**
 * Deposit(address,uint256)/Withdrawal(address,uint256) mint and burn only on WETH-like
 * tokens; vaults and bridges emit the same events without being tokens. A contract emitting
 * them counts as wrapped native when it is configured as such, or when it answers
 * totalSupply() and decimals() like a token. Each contract is probed once per process.
 */
export class WrappedNativeTokens {
  private readonly known: Set<string>;
  private readonly rejected = new Set<string>();

  constructor(
    private readonly rpc: RpcClient,
    configured: readonly string[] = [],
  ) {
    this.known = new Set(configured.map((a) => a.toLowerCase()));
  }

  get set(): ReadonlySet<string> {
    return this.known;
  }

  /** Probes the not-yet-classified emitters of Deposit/Withdrawal in these logs. */
  async learnFrom(logs: readonly RpcLog[], block: bigint): Promise<void> {
    const candidates = new Set<Hex>();
    for (const log of logs) {
      const topic = log.topics[0];
      if ((topic !== DEPOSIT_TOPIC && topic !== WITHDRAWAL_TOPIC) || log.topics.length !== 2) continue;
      const address = log.address.toLowerCase() as Hex;
      if (!this.known.has(address) && !this.rejected.has(address)) candidates.add(address);
    }
    await Promise.all(
      [...candidates].map(async (address) => {
        const verdict = await this.judge(address, block).catch(async (error: unknown) => {
          // A node without the state of old blocks (a full node, not an archive) refuses calls
          // there: judge the contract as it is now rather than stall the backfill on it.
          if (classifyFailure(error).kind !== 'rpc-error') throw error;
          return this.judge(address, 'latest');
        });
        if (verdict === 'token') this.known.add(address);
        else if (verdict === 'not a token') this.rejected.add(address);
      }),
    );
  }

  /**
   * A node that lacks the block (a lagging backend, a reorg under us) fails the calls too: only
   * a contract it can show us is judged, the others are asked again next time.
   */
  private async judge(address: Hex, block: BlockRef): Promise<'token' | 'not a token' | 'unknown'> {
    const [supply, decimals] = await Promise.all([
      callOrNull(this.rpc, address, TOKEN_SELECTORS.totalSupply, block),
      callOrNull(this.rpc, address, TOKEN_SELECTORS.decimals, block),
    ]);
    if ([supply, decimals].every((r) => r !== null && r.length === 66)) return 'token';
    return hexByteLength(await this.rpc.getCode(address, block)) !== 0 ? 'not a token' : 'unknown';
  }
}
