/**
 * Arbitrum (Nitro): its nodes add the block's position on the parent chain to the header
 * (`l1BlockNumber`, `sendCount`, `sendRoot`) and keep the count of delayed messages read in the
 * nonce. Batches, commitments and confirmations live on the parent chain.
 */
import type { Static } from '@sinclair/typebox';
import type { ChainKind, StoredChainFields } from '../kind.js';
import type { RpcBlock } from '../../rpc/types.js';
import { parseQuantity, toSafeNumber } from '../../rpc/quantity.js';
import { lowerHex } from '../../evm/hex.js';
import { ArbitrumBlockObject } from './schema.js';

/** The header fields, as stored (the wire's names). */
export interface ArbitrumHeaderFields {
  delayed_messages: number | null;
  l1_block_number: number | null;
  send_count: number | null;
  send_root: string | null;
}

function headerFields(block: RpcBlock): ArbitrumHeaderFields | null {
  if (block.l1BlockNumber === undefined && block.sendCount === undefined && block.sendRoot === undefined) return null;
  const optionalNumber = (value: string | undefined, what: string): number | null =>
    value === undefined ? null : toSafeNumber(parseQuantity(value), what);
  return {
    // Nitro stores the number of delayed (parent → child) messages read in the nonce field.
    delayed_messages: block.nonce ? toSafeNumber(parseQuantity(block.nonce), 'delayed messages') : null,
    l1_block_number: optionalNumber(block.l1BlockNumber, 'l1 block number'),
    send_count: optionalNumber(block.sendCount, 'send count'),
    send_root: block.sendRoot === undefined ? null : lowerHex(block.sendRoot),
  };
}

function blockView(stored: StoredChainFields): Static<typeof ArbitrumBlockObject> {
  const header = stored as unknown as ArbitrumHeaderFields;
  return {
    // Settlement data comes from the parent chain, which is not followed yet: unknown.
    batch_number: null,
    status: null,
    batch_data_container: null,
    commitment_transaction: null,
    confirmation_transaction: null,
    delayed_messages: header.delayed_messages,
    l1_block_number: header.l1_block_number,
    send_count: header.send_count,
    send_root: header.send_root,
  };
}

export const arbitrum = {
  key: 'arbitrum',
  headerFields: (block) => headerFields(block) as StoredChainFields | null,
  blockView,
  blockSchema: ArbitrumBlockObject,
} as const satisfies ChainKind<'arbitrum', typeof ArbitrumBlockObject>;
