import type { ChainConfig } from '../config/config.js';
import { createRpcClient, type RpcClient, type RpcClientOptions, type RpcLogger } from '../rpc/client.js';

/** The chain's RPC client with its configured budget: requests in flight, calls per batch and per second. */
export function chainRpcClient(chain: ChainConfig, logger: RpcLogger, overrides: Partial<RpcClientOptions> = {}): RpcClient {
  return createRpcClient({
    chainId: chain.chainId,
    urls: chain.rpcUrls,
    logger,
    concurrency: chain.rpcConcurrency,
    batchSize: chain.rpcBatchSize,
    requestsPerSecond: chain.rpcRequestsPerSecond,
    ...overrides,
  });
}

/** `logger` with `fields` on every line: a parent chain's RPC faults must not read as the chain's own node's. */
function labelledRpcLogger(logger: RpcLogger, fields: Record<string, unknown>): RpcLogger {
  return {
    warn: (obj, msg) => logger.warn({ ...obj, ...fields }, msg),
    info: (obj, msg) => logger.info({ ...obj, ...fields }, msg),
    debug: (obj, msg) => logger.debug({ ...obj, ...fields }, msg),
  };
}

/** Clients for a chain's other nodes (a parent chain's): the chain's RPC budget, their log lines labelled so. */
export function otherNodesRpc(chain: ChainConfig, logger: RpcLogger, overrides: Partial<RpcClientOptions> = {}): (urls: readonly string[]) => RpcClient {
  return (urls) => chainRpcClient(chain, labelledRpcLogger(logger, { rpc: 'parent chain' }), { ...overrides, urls: [...urls] });
}
