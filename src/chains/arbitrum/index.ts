/**
 * Arbitrum (Nitro): its nodes add the block's position on the parent chain to the header
 * (`l1BlockNumber`, `sendCount`, `sendRoot`) and keep the count of delayed messages read in the
 * nonce. Batches, commitments and confirmations live on the parent chain: with the chain's
 * `arbitrum` setting (config.ts), a follower (follower.ts) keeps them in the kind's tables
 * (store.ts, migration 011), read with each block (settlement.ts); the child node's NodeInterface
 * gives the batch number of blocks whose batch the follower has not seen (sealed-batches.ts,
 * migration 019).
 */
import type { Static } from '@sinclair/typebox';
import type { ChainKind, StoredChainFields } from '../kind.js';
import type { RpcBlock } from '../../rpc/types.js';
import { parseQuantity, toSafeNumber } from '../../rpc/quantity.js';
import { lowerHex } from '../../evm/hex.js';
import { ArbitrumBlockObject } from './schema.js';
import { parentTransaction, settlementSql, settlementStatus, type StoredSettlement } from './settlement.js';
import { ArbitrumFollower, connectParent } from './follower.js';
import { SealedBatchFinder } from './sealed-batches.js';

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

function blockView(stored: StoredChainFields, read: unknown): Static<typeof ArbitrumBlockObject> {
  const header = stored as unknown as ArbitrumHeaderFields;
  // null: the chain's parent is not followed (no `arbitrum` setting), so its settlement is unknown
  const settlement = read as StoredSettlement | null;
  const commitment = parentTransaction(settlement?.batch ?? null, settlement?.safe_block ?? null);
  const confirmation = parentTransaction(settlement?.confirmation ?? null, settlement?.safe_block ?? null);
  // a batch seen on the parent says more (its transaction); the NodeInterface's only its number
  const batchNumber = settlement?.batch?.number ?? settlement?.sealed ?? null;
  return {
    batch_number: batchNumber,
    status: settlement === null ? null : settlementStatus({ batchNumber, commitment, confirmation }),
    batch_data_container: settlement?.batch?.container ?? null,
    commitment_transaction: commitment,
    confirmation_transaction: confirmation,
    delayed_messages: header.delayed_messages,
    l1_block_number: header.l1_block_number,
    l1_block_height: header.l1_block_number,
    send_count: header.send_count,
    send_root: header.send_root,
  };
}

export const arbitrum = {
  key: 'arbitrum',
  headerFields: (block) => headerFields(block) as StoredChainFields | null,
  blockView,
  blockSchema: ArbitrumBlockObject,
  readSql: settlementSql,
  // the rollup and the parent's chain id, as the follower checks them, so that a wrong setting
  // is the start's error line rather than a fatal log line later; a parent out of reach now is
  // the follower's to wait for
  otherRpcUrls: (chain) => chain.arbitrum?.parentRpcUrls ?? [],
  checkAtStart: async ({ db, chain, logger, createRpc }, signal) => {
    const settlement = chain.arbitrum;
    if (!settlement) return;
    const parent = createRpc(settlement.parentRpcUrls);
    try {
      await connectParent({ db, chainId: chain.chainId, settlement, parent }, signal);
    } catch (error) {
      if (!signal.aborted) throw error;
      logger.warn({ chainId: chain.chainId, task: 'arbitrum-settlement' }, 'parent chain not reached at start: its settings are checked once it answers');
    } finally {
      parent.close();
    }
  },
  // a chain configured with `arbitrum` follows its parent chain
  backgroundTask: ({ db, chain, rpc, logger, createRpc, metrics }) => {
    const settlement = chain.arbitrum;
    if (!settlement) return null;
    return async (signal) => {
      const parent = createRpc(settlement.parentRpcUrls);
      const sealed = new SealedBatchFinder({
        db, chainId: chain.chainId, child: rpc, logger, firstMessageBlock: settlement.messagesToBlocksShift, pollIntervalMs: chain.pollIntervalMs,
      });
      try {
        await Promise.all([
          new ArbitrumFollower({
            db, chainId: chain.chainId, settlement, parent, child: rpc, logger, pollIntervalMs: chain.pollIntervalMs,
            onRollBack: () => sealed.rangesDropped(),
            ...(metrics ? { metrics } : {}),
          }).run(signal),
          // needs the child node only: runs on while the parent is down
          sealed.run(signal),
        ]);
      } finally {
        parent.close();
      }
    };
  },
} as const satisfies ChainKind<'arbitrum', typeof ArbitrumBlockObject>;
