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
export function labelledRpcLogger(logger: RpcLogger, fields: Record<string, unknown>): RpcLogger {
  return {
    warn: (obj, msg) => logger.warn({ ...obj, ...fields }, msg),
    info: (obj, msg) => logger.info({ ...obj, ...fields }, msg),
    debug: (obj, msg) => logger.debug({ ...obj, ...fields }, msg),
  };
}
