import { Type } from '@sinclair/typebox';
import { Nullable } from '../../api/schemas/common.js';

/** A parent-chain transaction of a batch: its commitment or its confirmation (every member null when there is none yet). */
export const ParentChainTransaction = Type.Object({ hash: Nullable(Type.String()), status: Nullable(Type.String()), timestamp: Nullable(Type.String()) });

/** The block object's `arbitrum` property (spec 2.6). */
export const ArbitrumBlockObject = Type.Object({
  batch_number: Nullable(Type.Integer()),
  status: Nullable(Type.String({ description: 'Processed on rollup, Sealed on rollup, Sent to base or Confirmed on base' })),
  batch_data_container: Nullable(Type.String({ description: 'in_blob4844, in_calldata, in_anytrust, in_celestia, in_eigenda' })),
  commitment_transaction: ParentChainTransaction,
  confirmation_transaction: ParentChainTransaction,
  delayed_messages: Nullable(Type.Integer()),
  l1_block_number: Nullable(Type.Integer()),
  /** the older name of l1_block_number, sent beside it as the reference does (docs/COMPATIBILITY.md, "Older field names") */
  l1_block_height: Nullable(Type.Integer()),
  send_count: Nullable(Type.Integer()),
  send_root: Nullable(Type.String()),
});
