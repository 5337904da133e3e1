/**
 * The child node's NodeInterface (abi.ts): which batch holds a child block, for blocks whose batch
 * the parent follower has not seen. A node without one (plain EVM, or a Nitro node's proxy that
 * drops the call) answers with no data; a Nitro node refuses a block no batch holds yet with an
 * error, which is "not known now", not a fault.
 */
import { decodeFunctionResult, encodeFunctionData } from 'viem';
import { callOrNull, type RpcClient } from '../../rpc/client.js';
import { nodeInterfaceAbi, NODE_INTERFACE_ADDRESS } from './abi.js';

/** An answer that is not a uint64: the node has no NodeInterface at the address. */
export class NoNodeInterfaceError extends Error {
  constructor(answer: string) {
    super(`the child node has no NodeInterface at ${NODE_INTERFACE_ADDRESS} (findBatchContainingBlock answered ${answer.slice(0, 80) || 'nothing'})`);
    this.name = 'NoNodeInterfaceError';
  }
}

/**
 * The batch holding child block `block`; null when the node refuses (no batch holds it yet, or it
 * is before the chain's Nitro genesis). Throws NoNodeInterfaceError when nothing answers at the
 * address, and the client's error on a fault of the node or the connection.
 */
export async function findBatchContainingBlock(child: RpcClient, block: bigint, signal: AbortSignal): Promise<bigint | null> {
  const data = encodeFunctionData({ abi: nodeInterfaceAbi, functionName: 'findBatchContainingBlock', args: [block] });
  const answer = await callOrNull(child, NODE_INTERFACE_ADDRESS, data, 'latest', { signal });
  if (answer === null) return null;
  // exactly one word: an empty answer (no code there) or any other shape is not the NodeInterface
  if (answer.length !== 66) throw new NoNodeInterfaceError(answer);
  return decodeFunctionResult({ abi: nodeInterfaceAbi, functionName: 'findBatchContainingBlock', data: answer });
}
