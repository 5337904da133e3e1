/**
 * A kind of chain (Arbitrum, later OP-stack or others): what it adds to the plain EVM model, in
 * one module, as viem's chain formatters are the one place a chain's extras plug in. Plain EVM
 * chains need none: src/evm/ is the model every chain shares.
 *
 * A kind contributes
 * - the header fields its nodes send beyond Ethereum's, kept in `blocks.chain_fields` under the
 *   kind's key (a block carries the fields of every kind whose fields it has);
 * - the block object's property of the same key, with its schema (serialization, OpenAPI, SDK
 *   types all come from it);
 * - its own tables (its migrations), read with the block row through one SQL expression;
 * - a background task per chain whose config enables it (Arbitrum: following the parent chain).
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { RpcBlock } from '../rpc/types.js';
import type { RpcClient } from '../rpc/client.js';
import type { Database } from '../db/client.js';
import type { ChainConfig } from '../config/config.js';
import type { Logger } from '../indexer/logger.js';
import type { IndexerMetrics } from '../indexer/metrics.js';

/** What a kind's background task gets: the chain, its node's client, a way to make others. */
export interface KindTaskContext {
  db: Database;
  chain: ChainConfig;
  rpc: RpcClient;
  logger: Logger;
  /** a client with the chain's retry policy for other nodes (a parent chain's); closed by the caller */
  createRpc(urls: readonly string[]): RpcClient;
  /** the process's Prometheus series, when it serves them */
  metrics?: IndexerMetrics;
}

export type StoredChainFields = Readonly<Record<string, unknown>>;

export interface ChainKind<Key extends string = string, Schema extends TSchema = TSchema> {
  /** key of the kind's entry in `chain_fields` and of its property on the block object */
  readonly key: Key;
  /** the kind's fields of a node block, as stored; null when the block has none of them */
  headerFields(block: RpcBlock): StoredChainFields | null;
  /** the block object's property, from what `headerFields` stored and what `readSql` read */
  blockView(stored: StoredChainFields, read: unknown): Static<Schema>;
  readonly blockSchema: Schema;
  /** an SQL expression over the block row (its alias given) reading the kind's own tables; null when the kind has none */
  readSql(blockAlias: string): string | null;
  /** the chain's background task when its config enables one, else null; runs until the signal aborts */
  backgroundTask(context: KindTaskContext): ((signal: AbortSignal) => Promise<void>) | null;
  /**
   * At start, before anything runs: the kind's settings checked against the nodes, a ConfigError
   * when they are wrong (the command's one line); a node that does not answer before `signal`
   * aborts is left to the background task, which checks again when it reaches it.
   */
  checkAtStart?(context: KindTaskContext, signal: AbortSignal): Promise<void>;
  /**
   * The other nodes' URLs the chain's config gives the kind (a parent chain's): their keys are
   * masked in every log line as the chain's own URLs are (cli/runtime.ts).
   */
  otherRpcUrls?(chain: ChainConfig): readonly string[];
}
