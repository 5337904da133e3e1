import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { fromHexText, toBytea } from '../hex.js';
import { blockColumns, blockTableColumns } from '../model/block.js';
import { omitColumns, pickColumns, readRow, selectList, type RowOf } from '../model/columns.js';
import { kindReadColumns, kindReads, type KindReads } from '../../chains/index.js';
import { addressLateralJoin, addressSelectColumns, readAddress, type AddressInfo, type AddressRowColumns } from './address-columns.js';
// a page of blocks not rendered yet is rendered by the view's own code (write-blocks.ts)
import { blockPageJson, type BlockPageItem } from '../../api/views/block-page-json.js';

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
export function blocksWithMiner(where: string, tail = ''): string {
  return `SELECT ${selectList(pageColumns, 'b')}, ${addressSelectColumns}${kindReadColumns('b')}
     FROM blocks b
     ${addressLateralJoin('b.miner', '$1')}
     WHERE b.chain_id = $1 AND ${where}
     ${tail}`;
}

export async function readBlocks(db: Queryable, text: string, args: unknown[], genericPlan = false): Promise<ValidatedBlock[]> {
  const rows = await db.query<Record<string, unknown> & AddressRowColumns>(text, args, { prepare: true, genericPlan });
  return rows.map((r) => {
    const block = readRow(pageColumns, r);
    return { block, miner: readAddress(block.miner, r), kinds: kindReads(r) };
  });
}

function keysetArgs(params: PageParams): { args: unknown[]; keyset: string } {
  const args: unknown[] = [params.chainId, toBytea(params.miner), params.limit];
  if (params.beforeNumber === null) return { args, keyset: '' };
  args.push(params.beforeNumber.toString());
  return { args, keyset: 'AND b.number < $4::bigint' };
}

export interface PageParams {
  chainId: number;
  miner: Hex;
  beforeNumber: bigint | null;
  limit: number;
}

/** What a page reads of each block: the columns blocks_validated_page holds (migration 021). */
export const indexedColumns = pickColumns(blockTableColumns, 'number', 'consensus', 'isUncle', 'gasUsed', 'gasLimit', 'chainFields', 'pageJson');

/**
 * The page statement, exported so tests can EXPLAIN exactly what the API runs: an index-only
 * range scan of blocks_validated_page, and the miner's decorations (one probe, the same row for
 * every block).
 */
export function blocksValidatedPageQuery(params: PageParams) {
  const { args, keyset } = keysetArgs(params);
  return {
    text: `SELECT ${selectList(indexedColumns, 'b')}, ${addressSelectColumns}${kindReadColumns('b')}
     FROM blocks b
     ${addressLateralJoin('b.miner', '$1')}
     WHERE b.chain_id = $1 AND b.miner = $2 ${keyset}
     ORDER BY b.number DESC LIMIT $3`,
    args,
  };
}

/** The same page of full rows, for blocks not rendered yet (page_json null). */
function fullPageQuery(params: PageParams) {
  const { args, keyset } = keysetArgs(params);
  return { text: blocksWithMiner(`b.miner = $2 ${keyset}`, 'ORDER BY b.number DESC LIMIT $3'), args };
}

/** A page of blocks mined by one address, newest first, and that address's decorations. */
export interface ValidatedBlocksPage {
  items: BlockPageItem[];
  /** null when the page is empty */
  miner: AddressInfo | null;
}

/**
 * One page of blocks mined by an address, newest first: a range scan of blocks_validated_page.
 * A block written before migration 021 (or whose fields changed since its rendering) has no
 * page_json until the indexer's backfill renders it, and one too large for the index has none
 * at all: such a page is read again as full rows and rendered here, by the same code.
 */
export async function blocksValidatedPage(db: Queryable, params: PageParams): Promise<ValidatedBlocksPage> {
  const { text, args } = blocksValidatedPageQuery(params);
  // one range scan whatever the miner: planned once (QueryOptions.genericPlan)
  const rows = await db.query<Record<string, unknown> & AddressRowColumns>(text, args, { prepare: true, genericPlan: true });
  if (rows.length === 0) return { items: [], miner: null };
  const miner = readAddress(params.miner, rows[0]!);
  const items: BlockPageItem[] = [];
  for (const r of rows) {
    const row = readRow(indexedColumns, r);
    // null: not rendered yet; NOT_RENDERED (''): too large to keep rendered (write-blocks.ts)
    if (!row.pageJson) return renderedFullPage(db, params);
    items.push({ ...row, pageJson: row.pageJson, kinds: kindReads(r) });
  }
  return { items, miner };
}

async function renderedFullPage(db: Queryable, params: PageParams): Promise<ValidatedBlocksPage> {
  const { text, args } = fullPageQuery(params);
  const blocks = await readBlocks(db, text, args, true);
  return {
    items: blocks.map(({ block, kinds }) => ({ ...block, pageJson: blockPageJson(block), kinds })),
    miner: blocks[0]?.miner ?? null,
  };
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
     WHERE chain_id = $1 AND number = $2::bigint AND NOT consensus ORDER BY blocks.hash LIMIT 1`,
    [chainId, number.toString()],
    { prepare: true },
  );
  return rows[0] ? fromHexText(rows[0].hash) : null;
}
