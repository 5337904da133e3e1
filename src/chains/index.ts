/** The chain kinds this build knows; adding one is adding its module here. */
import { Type, type TOptional, type TSchema } from '@sinclair/typebox';
import type { ChainFields } from '../db/model/block.js';
import type { RpcBlock } from '../rpc/types.js';
import type { ChainKind, KindTaskContext } from './kind.js';
import { arbitrum } from './arbitrum/index.js';
import { FEE_PARAMS_KEY, headerFeeParams } from '../evm/header-fee-params.js';

export const CHAIN_KINDS = [arbitrum] as const;

type Kinds = (typeof CHAIN_KINDS)[number];

/** The kinds' keys: each is the block object's property of that kind. */
export type ChainKindKey = Kinds['key'];
export const CHAIN_KIND_KEYS: readonly ChainKindKey[] = CHAIN_KINDS.map((k) => k.key);

/**
 * What a header carries beyond Ethereum's: the fields of every kind whose fields the block has,
 * and the EIP-1559 parameters an OP-stack header names (header-fee-params.ts, under its own key:
 * no block object property comes of it); null for a plain EVM block.
 */
export function chainFieldsOf(block: RpcBlock): ChainFields | null {
  let fields: Record<string, ChainFields[string]> | null = null;
  for (const kind of CHAIN_KINDS as readonly ChainKind[]) {
    const own = kind.headerFields(block);
    if (own !== null) (fields ??= {})[kind.key] = own;
  }
  const feeParams = headerFeeParams(block);
  if (feeParams !== null) (fields ??= {})[FEE_PARAMS_KEY] = feeParams;
  return fields;
}

/** What the kinds read from their own tables with a block, by kind key (`kindReads`). */
export type KindReads = Readonly<Record<string, unknown>>;

const readColumn = (kind: ChainKind) => `kind_${kind.key}`;

/** The select list's extra columns (block alias given): each kind's own tables, read with the block. */
export function kindReadColumns(blockAlias: string): string {
  return (CHAIN_KINDS as readonly ChainKind[])
    .map((kind) => {
      const sql = kind.readSql(blockAlias);
      return sql === null ? null : `${sql} AS ${readColumn(kind)}`;
    })
    .filter((c) => c !== null)
    .map((c) => `, ${c}`)
    .join('');
}

/** Those columns of a row, by kind key. */
export function kindReads(row: Readonly<Record<string, unknown>>): KindReads {
  const reads: Record<string, unknown> = {};
  for (const kind of CHAIN_KINDS as readonly ChainKind[]) {
    const value = row[readColumn(kind)];
    if (value !== undefined && value !== null) reads[kind.key] = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  }
  return reads;
}

/** The block object's properties for the kinds present in `fields` (none for plain EVM). */
export function chainFieldViews(fields: ChainFields | null, reads: KindReads = {}): Record<string, unknown> {
  if (fields === null) return {};
  const views: Record<string, unknown> = {};
  for (const kind of CHAIN_KINDS as readonly ChainKind[]) {
    const stored = fields[kind.key];
    if (stored !== undefined) views[kind.key] = kind.blockView(stored, reads[kind.key] ?? null);
  }
  return views;
}

/** The background tasks the kinds run for a chain (those its config enables). */
export function chainKindTasks(context: KindTaskContext): Array<(signal: AbortSignal) => Promise<void>> {
  return (CHAIN_KINDS as readonly ChainKind[]).map((kind) => kind.backgroundTask(context)).filter((t) => t !== null);
}

/** The kinds' start-up checks of a chain's settings (ChainKind.checkAtStart), each given `waitMs` for its nodes. */
export async function checkChainKindsAtStart(context: KindTaskContext, waitMs: number): Promise<void> {
  for (const kind of CHAIN_KINDS as readonly ChainKind[]) await kind.checkAtStart?.(context, AbortSignal.timeout(waitMs));
}

/** The block schema's optional property per kind, typed by the kind's own schema. */
export function chainKindProperties(): { [K in Kinds as K['key']]: TOptional<K['blockSchema']> } {
  return Object.fromEntries(CHAIN_KINDS.map((k) => [k.key, Type.Optional(k.blockSchema as TSchema)])) as never;
}
