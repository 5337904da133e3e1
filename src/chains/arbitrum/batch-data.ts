/**
 * What a batch transaction says about its batch: the child blocks it seals (from the message
 * counts in its calldata) and where its data lives (from the data's first byte, or its blobs).
 */
import { decodeFunctionData, type Hex } from 'viem';
import { batchPostingAbi, BatchDataLocation } from './abi.js';

export type BatchDataContainer = 'in_blob4844' | 'in_calldata' | 'in_anytrust' | 'in_celestia' | 'in_eigenda';

/** The batch's messages `[prev, new)`, and its data when it is in the calldata. */
export interface BatchCall {
  prevMessageCount: bigint | null;
  newMessageCount: bigint | null;
  /** the `data` argument (calldata batches); null for blob batches */
  data: Hex | null;
}

/**
 * The batch-posting call of a transaction's input; null when the input is not one (the batch was
 * posted by a contract: its range comes from the neighbouring batches). The legacy form carries
 * no counts.
 */
export function decodeBatchCall(input: Hex): BatchCall | null {
  let decoded;
  try {
    decoded = decodeFunctionData({ abi: batchPostingAbi, data: input });
  } catch {
    return null;
  }
  const args = decoded.args as readonly unknown[];
  const withData = decoded.functionName !== 'addSequencerL2BatchFromBlobs' && decoded.functionName !== 'addSequencerL2BatchFromBlobsDelayProof';
  const data = withData ? (args[1] as Hex) : null;
  if (args.length === 4) return { prevMessageCount: null, newMessageCount: null, data };
  // (…, prevMessageCount, newMessageCount[, delayProof]) after 4 (calldata) or 3 (blobs) arguments
  const at = withData ? 4 : 3;
  return { prevMessageCount: args[at] as bigint, newMessageCount: args[at + 1] as bigint, data };
}

/** The header byte of a batch's data → where the data is (Nitro's header flags and the DA providers' own). */
export function containerOfData(data: Hex | null): BatchDataContainer | null {
  if (data === null || data.length < 4) return null;
  switch (data.slice(2, 4).toLowerCase()) {
    case '00':
      return 'in_calldata';
    case '80':
    case '88':
      return 'in_anytrust';
    case '63':
      return 'in_celestia';
    case 'ed':
      return 'in_eigenda';
    default:
      return null;
  }
}

/** A batch's container from its event's data location and the data, where it has any. */
export function batchDataContainer(location: number, data: Hex | null): BatchDataContainer | null {
  if (location === BatchDataLocation.Blob) return 'in_blob4844';
  if (location === BatchDataLocation.NoData) return null;
  return containerOfData(data);
}
