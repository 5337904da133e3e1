/**
 * The chain's blocks, newest first (`/blocks` and the home page's latest blocks): the reference's
 * three lists. `block` is the consensus chain; `uncle` the non-consensus blocks a consensus block
 * names as its uncle; `reorg` the other non-consensus blocks at a height the consensus chain has
 * (the reference's `Block.block_type_filter`). Each row's miner is decorated by its own probe,
 * as blocks-validated's one miner is.
 */
import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { blockTableColumns } from '../model/block.js';
import { pickColumns, readRow, selectList } from '../model/columns.js';
import { kindReadColumns, kindReads } from '../../chains/index.js';
import { addressLateralJoin, addressSelectColumns, readAddress, type AddressInfo, type AddressRowColumns } from './address-columns.js';
import { blocksWithMiner, indexedColumns, readBlocks } from './blocks.js';
import { blockPageJson, type BlockPageItem } from '../../api/views/block-page-json.js';

export const BLOCK_LIST_TYPES = ['block', 'uncle', 'reorg'] as const;
export type BlockListType = (typeof BLOCK_LIST_TYPES)[number];

const FILTERS: Record<BlockListType, string> = {
  block: 'b.consensus',
  uncle: 'NOT b.consensus AND b.is_uncle',
  reorg: `NOT b.consensus AND NOT b.is_uncle
    AND EXISTS (SELECT 1 FROM blocks c WHERE c.chain_id = b.chain_id AND c.number = b.number AND c.consensus)`,
};

export interface BlockListParams {
  chainId: number;
  type: BlockListType;
  beforeNumber: bigint | null;
  limit: number;
}

/** A row of the list: the page item and its miner's decorations. */
export interface BlockListItem extends BlockPageItem {
  miner: AddressInfo;
}

const listColumns = { ...indexedColumns, ...pickColumns(blockTableColumns, 'miner', 'hash') };

function where(params: BlockListParams): { where: string; args: unknown[] } {
  const args: unknown[] = [params.chainId, params.limit];
  let keyset = '';
  if (params.beforeNumber !== null) {
    args.push(params.beforeNumber.toString());
    keyset = 'AND b.number < $3::bigint';
  }
  return { where: `${FILTERS[params.type]} ${keyset}`, args };
}

// one block a height on the consensus chain (its index's order alone); several non-consensus ones may share one: by hash then
const orderOf = (type: BlockListType) => (type === 'block' ? 'ORDER BY b.number DESC LIMIT $2' : 'ORDER BY b.number DESC, b.hash LIMIT $2');

/** The page statement, exported so tests can EXPLAIN exactly what the API runs. */
export function blocksListPageQuery(params: BlockListParams) {
  const { where: condition, args } = where(params);
  const text = `SELECT ${selectList(listColumns, 'b')}, ${addressSelectColumns}${kindReadColumns('b')}
     FROM blocks b
     ${addressLateralJoin('b.miner', '$1')}
     WHERE b.chain_id = $1 AND ${condition}
     ${orderOf(params.type)}`;
  return { text, args, condition };
}

/**
 * A page of the list: the blocks' rendered parts (page_json) and their miners. A page holding a
 * block not rendered yet (or too large to keep rendered) is read again as full rows and rendered
 * here, by the writer's code, as blocks-validated does.
 */
export async function blocksListPage(db: Queryable, params: BlockListParams): Promise<BlockListItem[]> {
  const { text, args, condition } = blocksListPageQuery(params);
  // one range scan whatever the cursor: planned once (QueryOptions.genericPlan)
  const rows = await db.query<Record<string, unknown> & AddressRowColumns>(text, args, { prepare: true, genericPlan: true });
  const items: BlockListItem[] = [];
  for (const r of rows) {
    const row = readRow(listColumns, r);
    if (!row.pageJson) return renderedListPage(db, blocksWithMiner(condition, orderOf(params.type)), args);
    items.push({ ...row, pageJson: row.pageJson, kinds: kindReads(r), miner: readAddress(row.miner as Hex, r) });
  }
  return items;
}

async function renderedListPage(db: Queryable, text: string, args: unknown[]): Promise<BlockListItem[]> {
  const blocks = await readBlocks(db, text, args);
  return blocks.map(({ block, kinds, miner }) => ({ ...block, pageJson: blockPageJson(block), kinds, miner }));
}
