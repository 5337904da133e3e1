/**
 * The per-chain setting `arbitrum`: where an Arbitrum chain settles. Given in the config file's
 * chain entry (like `blobSchedule`, it has no flag or variable); without it the chain's blocks
 * keep their settlement fields `null`.
 */
import { Type } from '@sinclair/typebox';
import { ADDRESS_SETTING, RPC_URL, type Kind } from '../../config/setting.js';
import type { Hex } from '../../db/rows.js';

export interface ArbitrumSettlementConfig {
  /** the rollup contract on the parent chain; its `sequencerInbox()` and `outbox()` are read at start */
  rollup: Hex;
  /** the parent chain's nodes, first primary, the rest fallbacks */
  parentRpcUrls: string[];
  /** the first parent block searched for batches and confirmations */
  parentStartBlock: bigint;
  /** child block number = message count + this (Arbitrum One: 22207817, its classic blocks) */
  messagesToBlocksShift: bigint;
}

const count = (what: string) =>
  Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^\\d{1,30}$' })], { errorMessage: what });

const ArbitrumSettlementSchema = Type.Object(
  {
    rollup: ADDRESS_SETTING,
    parentRpcUrls: Type.Array(RPC_URL, { minItems: 1, maxItems: 64 }),
    parentStartBlock: Type.Optional(count('a block number (a non-negative integer)')),
    messagesToBlocksShift: Type.Optional(count('a non-negative integer')),
  },
  { additionalProperties: false },
);

interface ArbitrumSettlementFile {
  rollup: string;
  parentRpcUrls: string[];
  parentStartBlock?: number | string;
  messagesToBlocksShift?: number | string;
}

export const arbitrumSettlementKind: Kind<ArbitrumSettlementConfig | null> = {
  schema: ArbitrumSettlementSchema,
  // a JSON object as text (the setting has no flag or variable; the file gives it)
  fromText: (text) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  },
  toValue: (v: ArbitrumSettlementFile) => ({
    rollup: v.rollup.toLowerCase() as Hex,
    parentRpcUrls: [...v.parentRpcUrls],
    parentStartBlock: BigInt(v.parentStartBlock ?? 0),
    messagesToBlocksShift: BigInt(v.messagesToBlocksShift ?? 0),
  }),
};
