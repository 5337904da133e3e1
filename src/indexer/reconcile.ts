import { decodeFunctionResult, encodeFunctionData, parseAbi } from 'viem';
import type { RpcClient } from '../rpc/client.js';
import type { Database } from '../db/client.js';
import type { BalanceRow } from '../db/rows.js';
import type { BalanceKey } from '../db/queries/write-balances.js';
import { putBalances } from '../db/queries/write-tokens.js';

const abi = parseAbi([
  'function balanceOf(address owner) view returns (uint256)',
  'function balanceOf(address owner, uint256 id) view returns (uint256)',
]);

/**
 * The token's own answer for one balance at a block. A call that reverts or returns garbage
 * means the contract does not report balances: its event-derived value is cleared to 0
 * rather than left negative.
 */
export async function balanceOfAt(rpc: RpcClient, key: BalanceKey, block: bigint): Promise<bigint> {
  const data =
    key.tokenId === null
      ? encodeFunctionData({ abi, functionName: 'balanceOf', args: [key.holder] })
      : encodeFunctionData({ abi, functionName: 'balanceOf', args: [key.holder, key.tokenId] });
  try {
    const result = await rpc.call(key.token, data, block);
    return decodeFunctionResult({ abi, functionName: 'balanceOf', data: result }) as bigint;
  } catch (error) {
    if (isRevert(error)) return 0n;
    throw error;
  }
}

function isRevert(error: unknown): boolean {
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /revert|execution reverted|invalid opcode|AbiDecodingZeroData|returned no data|Cannot decode/i.test(text);
}

/** What the token contracts report for these balances at `block` (calls batched by the client). */
export async function balancesAt(rpc: RpcClient, chainId: number, keys: readonly BalanceKey[], block: bigint): Promise<BalanceRow[]> {
  return Promise.all(keys.map(async (k) => ({ chainId, ...k, value: await balanceOfAt(rpc, k, block), blockNumber: block })));
}

/** Sets each balance to what the token contract reports at `block`. */
export async function reconcileBalances(
  db: Database,
  rpc: RpcClient,
  chainId: number,
  keys: readonly BalanceKey[],
  block: bigint,
): Promise<number> {
  if (keys.length === 0) return 0;
  const rows = await balancesAt(rpc, chainId, keys, block);
  await db.transaction((tx) => putBalances(tx, rows));
  return rows.length;
}
