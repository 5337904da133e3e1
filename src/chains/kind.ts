/**
 * A kind of chain (Arbitrum, later OP-stack or others): what it adds to the plain EVM model, in
 * one module, as viem's chain formatters are the one place a chain's extras plug in. Plain EVM
 * chains need none: src/evm/ is the model every chain shares.
 *
 * A kind contributes
 * - the header fields its nodes send beyond Ethereum's, kept in `blocks.chain_fields` under the
 *   kind's key (a block carries the fields of every kind whose fields it has);
 * - the block object's property of the same key, with its schema (serialization, OpenAPI, SDK
 *   types all come from it).
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { RpcBlock } from '../rpc/types.js';

export type StoredChainFields = Readonly<Record<string, unknown>>;

export interface ChainKind<Key extends string = string, Schema extends TSchema = TSchema> {
  /** key of the kind's entry in `chain_fields` and of its property on the block object */
  readonly key: Key;
  /** the kind's fields of a node block, as stored; null when the block has none of them */
  headerFields(block: RpcBlock): StoredChainFields | null;
  /** the block object's property, from what `headerFields` stored */
  blockView(stored: StoredChainFields): Static<Schema>;
  readonly blockSchema: Schema;
}
