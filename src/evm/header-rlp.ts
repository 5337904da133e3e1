/**
 * A block header as the chain hashes it: its fields, in the consensus order, RLP-encoded. Its
 * keccak is the block's hash, which is how a caller knows it read every field the chain has
 * (a fork's field it does not know makes the hash differ, never a silently wrong encoding).
 */
import { keccak256, toRlp, type Hex as ViemHex } from 'viem';
import type { RpcBlock } from '../rpc/types.js';

/** geth's types.Header, from `parentHash` to the newest fork's field; optional ones end the list. */
const FIXED_FIELDS = [
  ['parentHash', 'bytes'],
  ['sha3Uncles', 'bytes'],
  ['miner', 'bytes'],
  ['stateRoot', 'bytes'],
  ['transactionsRoot', 'bytes'],
  ['receiptsRoot', 'bytes'],
  ['logsBloom', 'bytes'],
  ['difficulty', 'quantity'],
  ['number', 'quantity'],
  ['gasLimit', 'quantity'],
  ['gasUsed', 'quantity'],
  ['timestamp', 'quantity'],
  ['extraData', 'bytes'],
  ['mixHash', 'bytes'],
  ['nonce', 'bytes'],
] as const;

/** Each fork's field, present from its fork on: a header has a prefix of these (London … Prague). */
const FORK_FIELDS = [
  ['baseFeePerGas', 'quantity'],
  ['withdrawalsRoot', 'bytes'],
  ['blobGasUsed', 'quantity'],
  ['excessBlobGas', 'quantity'],
  ['parentBeaconBlockRoot', 'bytes'],
  ['requestsHash', 'bytes'],
] as const;

export class HeaderFieldError extends Error {
  override readonly name = 'HeaderFieldError';
}

/** A JSON-RPC quantity as RLP wants it: big-endian, no leading zero byte, 0 as no bytes. */
function quantityBytes(value: string): ViemHex {
  const digits = BigInt(value).toString(16);
  return digits === '0' ? '0x' : `0x${digits.length % 2 === 0 ? digits : `0${digits}`}`;
}

/** The block's number as people write it, whatever the node sent. */
export function blockNumberText(block: RpcBlock): string {
  try {
    return BigInt(block.number).toString();
  } catch {
    return String(block.number);
  }
}

function fieldOf(block: RpcBlock, name: string, kind: 'bytes' | 'quantity'): ViemHex {
  const value = block[name];
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]*$/.test(value)) {
    throw new HeaderFieldError(`block ${blockNumberText(block)} has no ${name} the header can be encoded with`);
  }
  if (kind === 'quantity') return quantityBytes(value);
  if (value.length % 2 !== 0) throw new HeaderFieldError(`block ${blockNumberText(block)}: ${name} is not whole bytes`);
  return value.toLowerCase() as ViemHex;
}

/**
 * The header's RLP. The fork fields are taken while present: the first one absent ends the list,
 * as a header of that fork ends there.
 */
export function headerRlp(block: RpcBlock): ViemHex {
  const fields = FIXED_FIELDS.map(([name, kind]) => fieldOf(block, name, kind));
  for (const [name, kind] of FORK_FIELDS) {
    if (block[name] === undefined || block[name] === null) break;
    fields.push(fieldOf(block, name, kind));
  }
  return toRlp(fields);
}

/**
 * What a Clique or Bor seal signs: the header's fields to `nonce` with `extraData` in place of
 * the block's (without the seal), and the base fee where the header has one, but no later fork's
 * field: geth's Clique refuses headers with them, and Bor leaves them out of its seal hash.
 */
export function sealedHeaderRlp(block: RpcBlock, extraData: string): ViemHex {
  const unsealed = { ...block, extraData };
  const fields = FIXED_FIELDS.map(([name, kind]) => fieldOf(unsealed, name, kind));
  const [baseFee, kind] = FORK_FIELDS[0];
  if (block[baseFee] !== undefined && block[baseFee] !== null) fields.push(fieldOf(block, baseFee, kind));
  return toRlp(fields);
}

/** Whether the fields the node sent hash to the block's hash: every field of the header read. */
export function headerMatchesHash(block: RpcBlock): boolean {
  return keccak256(headerRlp(block)) === block.hash.toLowerCase();
}
