/** The chain kinds this build knows; adding one is adding its module here. */
import { Type, type TOptional, type TSchema } from '@sinclair/typebox';
import type { ChainFields } from '../db/model/block.js';
import type { RpcBlock } from '../rpc/types.js';
import type { ChainKind } from './kind.js';
import { arbitrum } from './arbitrum/index.js';

export const CHAIN_KINDS = [arbitrum] as const;

type Kinds = (typeof CHAIN_KINDS)[number];

/** The header fields of every kind whose fields the block carries; null for a plain EVM block. */
export function chainFieldsOf(block: RpcBlock): ChainFields | null {
  let fields: Record<string, ChainFields[string]> | null = null;
  for (const kind of CHAIN_KINDS as readonly ChainKind[]) {
    const own = kind.headerFields(block);
    if (own !== null) (fields ??= {})[kind.key] = own;
  }
  return fields;
}

/** The block object's properties for the kinds present in `fields` (none for plain EVM). */
export function chainFieldViews(fields: ChainFields | null): Record<string, unknown> {
  if (fields === null) return {};
  const views: Record<string, unknown> = {};
  for (const kind of CHAIN_KINDS as readonly ChainKind[]) {
    const stored = fields[kind.key];
    if (stored !== undefined) views[kind.key] = kind.blockView(stored);
  }
  return views;
}

/** The block schema's optional property per kind, typed by the kind's own schema. */
export function chainKindProperties(): { [K in Kinds as K['key']]: TOptional<K['blockSchema']> } {
  return Object.fromEntries(CHAIN_KINDS.map((k) => [k.key, Type.Optional(k.blockSchema as TSchema)])) as never;
}
