/** That the node serves the chain the index holds: checked at start and when no block is shared. */
import { ConfigError } from '../config/config.js';
import type { RpcClient } from '../rpc/client.js';
import { MethodNotSupportedError, RequestAbortedError, RetriesExhaustedError, RpcResponseError } from '../rpc/errors.js';
import { sleep } from '../rpc/backoff.js';
import { isAuthRefusal } from '../rpc/classify-failure.js';

/**
 * At start, every RPC URL that answers must serve the configured chain (a URL that does not
 * answer now is asked before its first use, and set aside if it serves another). When none
 * answers, this waits out the outage as any call does; a JSON-RPC error in place of the answer
 * (a provider's backend that is starting, "header not found") is asked again after `pauseMs`,
 * doubling to a minute: it says nothing of the URL (L2-provider review: one such answer ended
 * the process). One that refuses the key is a setting to fix, and ends the start.
 */
export async function verifyChainId(rpc: RpcClient, expected: number, pauseMs = 1_000): Promise<void> {
  const served = await rpc.urlChainIds();
  const wrong = served.filter((s) => s.chainId !== null && s.chainId !== expected);
  if (wrong.length > 0) {
    throw new ConfigError(`chain ${expected}: ${wrong.map((s) => `the RPC endpoint ${s.url} serves chain id ${s.chainId}`).join('; ')}, not ${expected}`);
  }
  if (served.every((s) => s.chainId === null)) {
    // waits out an outage; the URL that answers is asked on the way. A refusal no retry cures
    // (a wrong path: HTTP 404) names the chain and its URLs
    const answered = await rpc.getChainId().then(
      () => true,
      (error: unknown) => {
        if (error instanceof RetriesExhaustedError || error instanceof RequestAbortedError) throw error;
        // a key refused is a setting to fix, not a backend to wait for (retried for ever before)
        if (error instanceof RpcResponseError && isAuthRefusal(error)) {
          // (the provider's words are left out: some echo the key they refused)
          throw new ConfigError(`chain ${expected}: ${served.map((s) => s.url).join(', ')} refused the request as unauthorised (JSON-RPC error ${error.code}): check the API key in the RPC URL`);
        }
        if (error instanceof RpcResponseError && !(error instanceof MethodNotSupportedError)) {
          rpc.logger.warn({ chainId: expected, err: error.message, retryInMs: pauseMs }, 'the node answered eth_chainId with an error; asking again');
          return false;
        }
        throw new ConfigError(`chain ${expected}: ${served.map((s) => s.url).join(', ')} did not say which chain ${served.length > 1 ? 'they serve' : 'it serves'}: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
    if (!answered) await sleep(pauseMs);
    await verifyChainId(rpc, expected, answered ? pauseMs : Math.min(pauseMs * 2, 60_000));
  }
}

/** The node's chain shares not even our first indexed block: it is another chain, or was reset. */
export class ForeignChainError extends Error {
  override name = 'ForeignChainError';
  constructor(chainId: number, first: bigint) {
    super(
      `chain ${chainId}: the node's blocks differ from the index's all the way down to block ${first}, the first indexed: ` +
        `it serves another chain with this id, or was reset. To index it afresh, \`explorer chains remove ${chainId} --yes\` (its labels stay), then start again`,
    );
  }
}
