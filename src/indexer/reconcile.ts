import { decodeFunctionResult, encodeFunctionData, parseAbi } from 'viem';
import { EXECUTION_FAILURE_MESSAGE } from '../rpc/classify-failure.js';
import type { RpcClient } from '../rpc/client.js';
import type { Database, Queryable } from '../db/client.js';
import type { BalanceRow } from '../db/rows.js';
import { setBalances, type BalanceKey } from '../db/queries/write-balances.js';

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

/** The call failed in the contract (rpc/classify-failure.ts's execution failures), or its answer was no balance. */
function isRevert(error: unknown): boolean {
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return EXECUTION_FAILURE_MESSAGE.test(text) || /AbiDecodingZeroData|returned no data|Cannot decode/i.test(text);
}

/** What the token contracts report for these balances at `block` (calls batched by the client). */
export async function balancesAt(rpc: RpcClient, chainId: number, keys: readonly BalanceKey[], block: bigint): Promise<BalanceRow[]> {
  return Promise.all(keys.map(async (k) => ({ chainId, ...k, value: await balanceOfAt(rpc, k, block), blockNumber: block })));
}

const keyOf = (k: BalanceKey) => `${k.token}|${k.holder}|${k.tokenId ?? ''}`;

/** Balances a write drove negative that no reconciled value covers: the transaction is rolled back. */
export class UnreconciledBalancesError extends Error {
  override readonly name = 'UnreconciledBalancesError';
  constructor(readonly keys: readonly BalanceKey[]) {
    super(`${keys.length} balances went negative without a value from balanceOf`);
  }
}

/**
 * Inside a write's transaction, after its deltas: sets the reconciled balances, and refuses to
 * commit when a balance the deltas drove negative is not among them (only a token whose balances
 * change without events, or whose events lie, does that).
 */
export async function settleBalances(tx: Queryable, chainId: number, negative: readonly BalanceKey[], reconciled: readonly BalanceRow[]): Promise<void> {
  await setBalances(tx, chainId, reconciled);
  const known = new Set(reconciled.map(keyOf));
  const missing = negative.filter((k) => !known.has(keyOf(k)));
  if (missing.length > 0) throw new UnreconciledBalancesError(missing);
}

/**
 * Runs a write that settles its balances (settleBalances) with `reconciled`; when it is refused
 * for balances it drove negative, reads those at `block` and runs it again with them, so that the
 * write and its repair commit together: no crash can leave a negative balance behind. The
 * second run covers every key the first one named, so it settles (bounded for safety).
 */
export async function withBalanceRepair<T>(
  rpc: RpcClient,
  chainId: number,
  block: bigint,
  reconciled: readonly BalanceRow[],
  write: (reconciled: readonly BalanceRow[]) => Promise<T>,
  onRepair: (keys: readonly BalanceKey[]) => void = () => undefined,
): Promise<T> {
  let rows = reconciled;
  for (let attempt = 1; ; attempt++) {
    try {
      return await write(rows);
    } catch (error) {
      if (!(error instanceof UnreconciledBalancesError) || attempt >= 4) throw error;
      onRepair(error.keys);
      rows = [...rows, ...(await balancesAt(rpc, chainId, error.keys, block))];
    }
  }
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
  await db.transaction((tx) => setBalances(tx, chainId, rows));
  return rows.length;
}
