import type { RpcLogger } from '../rpc/client.js';

/** What the indexer and the chain kinds log through: pino's logger, or anything shaped like it. */
export type Logger = RpcLogger & { error(obj: Record<string, unknown>, msg?: string): void };
