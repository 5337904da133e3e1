import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { fromHexText, toBytea } from '../hex.js';
import { blockColumns } from '../model/block.js';
import { omitColumns, readRow, selectList, type RowOf } from '../model/columns.js';
import { kindReadColumns, kindReads, type KindReads } from '../../chains/index.js';
import { addressLateralJoin, addressSelectColumns, readAddress, type AddressInfo, type AddressRowColumns } from './address-columns.js';

/** What a page shows of a block: everything stored but its chain. */
const pageColumns = omitColumns(blockColumns, 'chainId');
export type PageBlock = RowOf<typeof pageColumns>;

/** A block of a page with its miner's address decorations. */
export interface ValidatedBlock {
  block: PageBlock;
  miner: AddressInfo;
  /** what chain kinds keep in their own tables about the block (Arbitrum: its settlement) */
  kinds: KindReads;
}

/** Blocks (alias b, chain in $1) with their miner's decorations, one primary-key probe each. */
function blocksWithMiner(where: string, tail = ''): string {
  return `SELECT ${selectList(pageColumns, 'b')}, ${addressSelectColumns}${kindReadColumns('b')}
     FROM blocks b
     ${addressLateralJoin('b.miner', '$1')}
     WHERE b.chain_id = $1 AND ${where}
     ${tail}`;
}

async function readBlocks(db: Queryable, text: string, args: unknown[], genericPlan = false): Promise<ValidatedBlock[]> {
  const rows = await db.query<Record<string, unknown> & AddressRowColumns>(text, args, { prepare: true, genericPlan });
  return rows.map((r) => {
    const block = readRow(pageColumns, r);
    return { block, miner: readAddress(block.miner, r), kinds: kindReads(r) };
  });
}

/** The page statement, exported so tests can EXPLAIN exactly what the API runs. */
export function blocksValidatedPageQuery(params: { chainId: number; miner: Hex; beforeNumber: bigint | null; limit: number }) {
  const args: unknown[] = [params.chainId, toBytea(params.miner), params.limit];
  let keyset = '';
  if (params.beforeNumber !== null) {
    args.push(params.beforeNumber.toString());
    keyset = 'AND b.number < $4::bigint';
  }
  return { text: blocksWithMiner(`b.miner = $2 ${keyset}`, 'ORDER BY b.number DESC LIMIT $3'), args };
}

/** One page of blocks mined by an address, newest first: a range scan of blocks_by_miner. */
export function blocksValidatedPage(
  db: Queryable,
  params: { chainId: number; miner: Hex; beforeNumber: bigint | null; limit: number },
): Promise<ValidatedBlock[]> {
  const { text, args } = blocksValidatedPageQuery(params);
  // one range scan of blocks_by_miner whatever the miner: planned once (QueryOptions.genericPlan)
  return readBlocks(db, text, args, true);
}

const BY_HASH = blocksWithMiner('b.hash = $2');
const CONSENSUS_BY_NUMBER = blocksWithMiner('b.number = $2::bigint AND b.consensus');

/** A block by hash, whatever its consensus (a reorged or uncle block too): the primary key. */
export async function blockByHash(db: Queryable, chainId: number, hash: Hex): Promise<ValidatedBlock | null> {
  return (await readBlocks(db, BY_HASH, [chainId, toBytea(hash)]))[0] ?? null;
}

/** The consensus block at a height: blocks_consensus_number. */
export async function consensusBlockAt(db: Queryable, chainId: number, number: bigint): Promise<ValidatedBlock | null> {
  return (await readBlocks(db, CONSENSUS_BY_NUMBER, [chainId, number.toString()]))[0] ?? null;
}

/**
 * A non-consensus block at a height (the one with the lowest hash when a reorg left several),
 * for the reference's "Block lost consensus" answer: blocks_nonconsensus_number.
 */
export async function nonConsensusBlockHashAt(db: Queryable, chainId: number, number: bigint): Promise<Hex | null> {
  const rows = await db.query<{ hash: string }>(
    `SELECT encode(hash, 'hex') AS hash FROM blocks
     WHERE chain_id = $1 AND number = $2::bigint AND NOT consensus ORDER BY hash LIMIT 1`,
    [chainId, number.toString()],
    { prepare: true },
  );
  return rows[0] ? fromHexText(rows[0].hash) : null;
}
