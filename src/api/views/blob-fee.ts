/**
 * A block's blob gas price (EIP-4844's "base fee per blob gas"): what every blob transaction in
 * the block pays per unit of blob gas, from the header's excess blob gas and the parameters of
 * the fork in force at the block's timestamp (the chain's blob schedule).
 */
import { blobParamsAt, type BlobSchedule } from '../../config/blob-schedule.js';

/** EIP-4844's integer approximation of factor × e^(numerator / denominator). */
export function fakeExponential(factor: bigint, numerator: bigint, denominator: bigint): bigint {
  let i = 1n;
  let output = 0n;
  let accumulator = factor * denominator;
  while (accumulator > 0n) {
    output += accumulator;
    accumulator = (accumulator * numerator) / (denominator * i);
    i += 1n;
  }
  return output / denominator;
}

/**
 * Past e^256 the price exceeds any uint256 amount (nobody could pay it), and the series needs
 * about e × excess/fraction steps: a header claiming such an excess is not worth a request's CPU.
 */
const MAX_EXPONENT = 256n;

/**
 * null for a header without excess blob gas (before Cancun, or a chain without blobs), and for
 * an excess no real chain reaches (price beyond uint256).
 */
export function blobGasPrice(excessBlobGas: bigint | null, timestamp: bigint, schedule: BlobSchedule): bigint | null {
  if (excessBlobGas === null) return null;
  const params = blobParamsAt(schedule, timestamp);
  const fraction = BigInt(params.baseFeeUpdateFraction);
  if (excessBlobGas > fraction * MAX_EXPONENT) return null;
  return fakeExponential(BigInt(params.minBaseFeePerBlobGas ?? 1), excessBlobGas, fraction);
}
