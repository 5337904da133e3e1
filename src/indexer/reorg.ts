import type { Hex } from '../db/rows.js';
import { dropEnsEventsAbove, refreshPrimaryNames } from '../db/queries/ens.js';
import type { RpcClient } from '../rpc/client.js';
import type { Logger } from './logger.js';
import type { Database } from '../db/client.js';
import {
  applyBalanceDeltas,
  balancesChangedAbove,
  takeBalanceChangesAbove,
} from '../db/queries/write-balances.js';
import { changesFrom, consensusHashes, orphanBlocksAbove, setChangesFrom, setIndexedBlock } from '../db/queries/progress.js';
import { balancesAt, settleBalances, withBalanceRepair } from './reconcile.js';
import { forgetTokensWithoutBalances, putBalances, refreshHolderCounts } from '../db/queries/write-tokens.js';
import { recheckAddresses } from '../db/queries/write-addresses.js';
import { releaseUncles } from '../db/queries/write-uncles.js';
import { reopenIntervalsAbove } from '../db/queries/write-history.js';
import { deleteSummariesAbove } from '../db/queries/balance-history.js';
import { dropPartMarksAbove } from '../db/queries/token-parts.js';
import { undoTransferCountsAbove } from '../db/queries/transfer-counts.js';
import type { BalanceRow } from '../db/rows.js';
import type { ChainConfig } from '../config/config.js';
import { ensRegistryFor } from '../config/ens.js';
import { ForeignChainError } from './chain-identity.js';


/**
 * The search compares this many heights at first, then eight times as many, up to STEP: most
 * reorgs are a block or two deep, and each height compared is a call (the first step had been
 * 64 whatever the depth: 67 calls a rollback of depth 2 to 10, in a fast-chain review).
 */
const FIRST_STEP = 8n;
const STEP = 64n;

/**
 * The node's hash at a height it must have (it is below its head). A `null` answer is a
 * lagging backend or a fault, not a different block: taking it for a mismatch would roll back
 * blocks that never changed, so it is asked again, and after that the step fails and is retried.
 */
async function nodeBlockHash(rpc: RpcClient, n: bigint, attempts = 10): Promise<string> {
  for (let i = 1; ; i++) {
    const block = await rpc.getBlock(n, false);
    if (block?.hash) return block.hash.toLowerCase();
    if (i >= attempts) throw new Error(`the node has no block ${n} below its head`);
    rpc.logger.debug({ chainId: rpc.chainId, block: n.toString(), attempt: i }, 'node does not have the block yet');
    await new Promise((r) => setTimeout(r, 100 * i));
  }
}

/**
 * The highest block where our chain and the node's agree, searched downward from `below` in
 * steps, comparing our stored consensus hashes with the node's. `floor` is the block before
 * the first one we indexed: nothing below it is ours to compare.
 */
export async function findCommonAncestor(db: Database, rpc: RpcClient, chainId: number, below: bigint, floor: bigint): Promise<bigint> {
  // Above the node's head (a reorg to a shorter chain) nothing can be common: start below it,
  // where every height must exist on the node.
  const head = await rpc.getBlockNumber();
  let high = below < head ? below : head;
  for (let step = FIRST_STEP; high > floor; step = step * 8n < STEP ? step * 8n : STEP) {
    const low = high - step + 1n > floor ? high - step + 1n : floor + 1n;
    const ours = await consensusHashes(db, chainId, low, high);
    const numbers: bigint[] = [];
    for (let n = high; n >= low; n--) numbers.push(n);
    const theirs = await Promise.all(numbers.map((n) => nodeBlockHash(rpc, n)));
    for (let i = 0; i < numbers.length; i++) {
      const n = numbers[i]!;
      const mine = ours.get(n);
      if (mine !== undefined && theirs[i] === mine) return n;
    }
    high = low - 1n;
  }
  return floor;
}

/** Those of `tokens` with no code at `block`: contracts the orphaned blocks created. */
async function tokensWithoutCodeAt(rpc: RpcClient, tokens: readonly Hex[], block: bigint): Promise<Hex[]> {
  if (block < 0n) return [...tokens]; // nothing existed before genesis
  const code = await Promise.all(tokens.map((t) => rpc.getCode(t, block)));
  return tokens.filter((_, i) => /^0x0*$/.test(code[i] ?? '0x'));
}

/**
 * Undoes everything above `ancestor` in one transaction: balances and holder counts by the
 * recorded deltas (exact), and tokens' transfer counts by the recorded counts (unknown after an
 * inexact rollback), blocks kept but marked orphaned, progress moved back. A reorg
 * deeper than the recorded changes sets the touched balances to what the token contracts
 * report at the ancestor, read before the transaction so a crash cannot split the two.
 * Tokens whose contract did not exist at the ancestor leave the index once nobody holds them
 * (a fresh index of the new branch would not know them), and the addresses the orphaned
 * balance changes touched are checked again by the enrichment (a contract the orphaned blocks
 * deployed is none on the new branch).
 */
export async function rollBackTo(
  db: Database,
  rpc: RpcClient,
  chainId: number,
  ancestor: bigint,
  indexedTip: bigint,
  logger: Logger,
  /** the chain's ENS registry: the names the orphaned blocks changed are worked out again */
  ensRegistry: Hex | null = null,
  /**
   * false when token parts are ahead of the indexed tip (a crash between a batch's commits,
   * ./write-parts.ts): their changes were never recorded, so no undo by the record is exact
   */
  recorded = true,
): Promise<void> {
  const exactFrom = await changesFrom(db, chainId);
  const exact = recorded && exactFrom !== null && ancestor + 1n >= exactFrom;
  const depth = (indexedTip - ancestor).toString();
  let truth: BalanceRow[] = [];
  const keys = await balancesChangedAbove(db, chainId, ancestor);
  const touchedTokens = [...new Set(keys.map((k) => k.token))];
  const touchedAddresses = [...new Set([...touchedTokens, ...keys.map((k) => k.holder)])];
  const createdAbove = await tokensWithoutCodeAt(rpc, touchedTokens, ancestor);
  if (!exact) {
    const fields = { chainId, ancestor: ancestor.toString(), depth, balances: keys.length };
    // token parts ahead are a crash's leftover, not a reorg beyond what the window was sized for
    if (recorded) logger.error(fields, 'REORG DEEPER THAN THE RECORDED WINDOW: resetting touched balances to balanceOf at the common ancestor');
    else logger.warn(fields, 'token parts ahead of the indexed block: resetting the balances they touched to balanceOf at the common ancestor');
    truth = await balancesAt(rpc, chainId, keys, ancestor);
  }
  // Undoing recorded deltas can drive a balance negative that balanceOf had set (a rebasing
  // token): it is read at the ancestor and written in the same transaction (withBalanceRepair).
  const orphaned = await withBalanceRepair(rpc, chainId, ancestor, [], (repaired) =>
    db.transaction(async (tx) => {
      const undo = await takeBalanceChangesAbove(tx, chainId, ancestor);
      const negative = exact ? await applyBalanceDeltas(tx, chainId, ancestor, undo.map((d) => ({ ...d, delta: -d.delta }))) : [];
      await undoTransferCountsAbove(tx, chainId, ancestor, exact);
      // the orphaned blocks' history and the counts taken on them go in the same transaction
      await refreshHolderCounts(tx, chainId, await reopenIntervalsAbove(tx, chainId, ancestor));
      await deleteSummariesAbove(tx, chainId, ancestor);
      if (!exact) await putBalances(tx, truth);
      await settleBalances(tx, chainId, negative, repaired);
      const { orphaned, uncles } = await orphanBlocksAbove(tx, chainId, ancestor);
      await releaseUncles(tx, chainId, uncles);
      const ensNodes = await dropEnsEventsAbove(tx, chainId, ancestor);
      if (ensRegistry !== null) await refreshPrimaryNames(tx, chainId, ensRegistry, ensNodes);
      await forgetTokensWithoutBalances(tx, chainId, createdAbove);
      await recheckAddresses(tx, chainId, touchedAddresses);
      await setIndexedBlock(tx, chainId, ancestor);
      await dropPartMarksAbove(tx, chainId, ancestor);
      if (!exact) await setChangesFrom(tx, chainId, null);
      return orphaned;
    }),
  );
  logger.warn({ chainId, ancestor: ancestor.toString(), depth, orphaned, exact }, 'reorg rolled back');
}

/** What a chain's reorg handling reads and writes. */
export interface ReorgScope {
  db: Database;
  rpc: RpcClient;
  chain: ChainConfig;
  logger: Logger;
}

/** Whether the node's block at min(tip, head) differs from ours; a node lacking it can't tell. */
export async function tipReplaced(scope: ReorgScope, tip: bigint, tipHash: Hex, head: bigint, signal: AbortSignal): Promise<boolean> {
  const { db, rpc, chain, logger } = scope;
  const height = head < tip ? head : tip;
  const ours = height === tip ? tipHash : (await consensusHashes(db, chain.chainId, height, height)).get(height);
  if (ours === undefined) return false;
  const theirs = await rpc.getBlock(height, false, { signal });
  if (theirs === null) logger.debug({ chainId: chain.chainId, block: height.toString() }, 'node does not have the block yet');
  return theirs !== null && theirs.hash?.toLowerCase() !== ours;
}

/**
 * Rolls back to the last block the node still has as we do, and says where indexing goes on
 * from; null when that is our tip: no block of ours was replaced (a node whose next block does
 * not link to its own tip). `before` runs once a rollback is certain.
 */
export async function rollBackReorg(
  scope: ReorgScope,
  next: bigint,
  options: { before: () => Promise<void>; recorded: boolean },
): Promise<{ next: bigint; parent: Hex | null } | null> {
  const { db, rpc, chain, logger } = scope;
  const ancestor = await findCommonAncestor(db, rpc, chain.chainId, next - 1n, chain.startBlock - 1n);
  // from genesis, not even block 0 in common (indexed from a later block, what lies below the
  // start is not ours to compare: a reorg deeper than the index rolls back to its start)
  if (ancestor < 0n) throw new ForeignChainError(chain.chainId, chain.startBlock);
  if (ancestor === next - 1n) return null;
  await options.before();
  await rollBackTo(db, rpc, chain.chainId, ancestor, next - 1n, logger, ensRegistryFor(chain.chainId, chain.ens), options.recorded);
  const parent = (await consensusHashes(db, chain.chainId, ancestor, ancestor)).get(ancestor) ?? null;
  return { next: ancestor + 1n, parent };
}
