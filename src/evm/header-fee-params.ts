/**
 * The EIP-1559 parameters an OP-stack block names in its own header. Since Holocene the chain's
 * operator sets them on L1 (SystemConfig) and every L2 header carries them in `extraData`:
 *
 * - Holocene: 9 bytes, version 0, then the base fee's change denominator and the elasticity
 *   multiplier, each a big-endian u32;
 * - Jovian: 17 bytes, version 1, the same two, then the minimum base fee, a big-endian u64.
 *
 * op-geth measures a block's gas used against `gasLimit / elasticity` of the block's own header
 * when it prices the next block, so that is the block's gas target. Base raised its target this
 * way in 2025: one `elasticity` per chain was wrong on one side of such a change.
 *
 * Any other `extraData` (a client's vanity text, a Clique seal, an empty one) names none. The
 * shapes are exact, as op-geth checks them, and both numbers must be at least 1; a chain that is
 * not OP stack and whose operator writes 9 bytes starting with 0x00 would be read as one.
 */
import type { ChainFields } from '../db/model/block.js';
import type { RpcBlock } from '../rpc/types.js';

/** Where the parameters are kept in `blocks.chain_fields` (beside the chain kinds' fields). */
export const FEE_PARAMS_KEY = 'eip1559';

// a type, not an interface: it is kept as one of chain_fields' records
export type HeaderFeeParams = {
  denominator: number;
  elasticity: number;
  /** Jovian's minimum base fee, wei as decimal text */
  minBaseFee?: string;
};

const HOLOCENE = { version: 0, bytes: 9 };
const JOVIAN = { version: 1, bytes: 17 };

/** The header's EIP-1559 parameters; null when its `extraData` names none. */
export function headerFeeParams(block: RpcBlock): HeaderFeeParams | null {
  const extra = block['extraData'];
  if (typeof extra !== 'string' || !/^0x[0-9a-fA-F]*$/.test(extra)) return null;
  const bytes = (extra.length - 2) / 2;
  const version = parseInt(extra.slice(2, 4), 16);
  const shape = [HOLOCENE, JOVIAN].find((s) => s.bytes === bytes && s.version === version);
  if (shape === undefined) return null;
  const denominator = parseInt(extra.slice(4, 12), 16);
  const elasticity = parseInt(extra.slice(12, 20), 16);
  if (denominator < 1 || elasticity < 1) return null;
  if (shape === HOLOCENE) return { denominator, elasticity };
  return { denominator, elasticity, minBaseFee: BigInt(`0x${extra.slice(20, 36)}`).toString() };
}

/** The elasticity a stored block's header named; null when it named none (the chain's setting applies). */
export function headerElasticity(fields: ChainFields | null): number | null {
  const elasticity = fields?.[FEE_PARAMS_KEY]?.['elasticity'];
  return typeof elasticity === 'number' ? elasticity : null;
}
