/**
 * The child anvil's NodeInterface: a STAND-IN (StandIns.sol says why: NodeInterface is a virtual
 * contract of Nitro nodes) put at 0x…C8 with anvil_setCode, whose batch table the test writes from
 * the batches it really posted on the parent chain. Its storage is written directly
 * (anvil_setStorageAt), so the child chain gains no block.
 */
import { decodeFunctionResult, encodeAbiParameters, encodeFunctionData, hexToBigInt, keccak256, numberToHex, type Hex } from 'viem';
import type { TestNode } from '../anvil.js';
import { standInArtifacts } from './rollup.js';
import { NODE_INTERFACE_ADDRESS, nodeInterfaceAbi } from '../../../src/chains/arbitrum/abi.js';

const word = (n: bigint) => numberToHex(n, { size: 32 });
// StandInNodeInterface's layout: slot 0 the array's length (elements from keccak256(slot 0)), slot 1 the genesis block
const ELEMENTS = hexToBigInt(keccak256(encodeAbiParameters([{ type: 'uint256' }], [0n])));

export async function installNodeInterface(child: TestNode, genesisBlock: bigint): Promise<void> {
  await child.test.setCode({ address: NODE_INTERFACE_ADDRESS, bytecode: standInArtifacts().StandInNodeInterface.deployedBytecode! });
  await child.test.setStorageAt({ address: NODE_INTERFACE_ADDRESS, index: word(1n), value: word(genesisBlock) });
}

/** The stand-in's answers from now on: batch i holds the child blocks up to `lastBlocks[i]`. */
export async function setNodeInterfaceBatches(child: TestNode, lastBlocks: readonly bigint[]): Promise<void> {
  await child.test.setStorageAt({ address: NODE_INTERFACE_ADDRESS, index: word(0n), value: word(BigInt(lastBlocks.length)) });
  for (const [i, last] of lastBlocks.entries()) {
    await child.test.setStorageAt({ address: NODE_INTERFACE_ADDRESS, index: word(ELEMENTS + BigInt(i)), value: word(last) });
  }
}

/** The child anvil as it is: no NodeInterface (nothing answers at 0x…C8). */
export async function removeNodeInterface(child: TestNode): Promise<void> {
  await child.test.setCode({ address: NODE_INTERFACE_ADDRESS, bytecode: '0x' });
}

/** What the child node says holds block `n`: its NodeInterface's answer, null when it refuses or has none. */
export async function nodeInterfaceBatch(child: TestNode, n: bigint): Promise<bigint | null> {
  const data = encodeFunctionData({ abi: nodeInterfaceAbi, functionName: 'findBatchContainingBlock', args: [n] });
  try {
    const answer = (await child.public.call({ to: NODE_INTERFACE_ADDRESS, data })).data as Hex | undefined;
    if (answer === undefined || answer === '0x') return null;
    return decodeFunctionResult({ abi: nodeInterfaceAbi, functionName: 'findBatchContainingBlock', data: answer });
  } catch (error) {
    if (error instanceof Error && /revert/i.test(error.message)) return null;
    throw error;
  }
}
