/**
 * The blocks-validated page as JSON, from parts the indexer rendered when it wrote the block.
 *
 * Most of a block object is fixed by its stored row (storedBlockFields): that part is rendered
 * once, at write time, by its schema's serializer, and kept in `blocks.page_json`, which the
 * page reads from its index (migration 021). A request adds what can change for a stored row:
 * `type` (a reorg flips consensus), `gas_target_percentage` (the chain's elasticity is a
 * setting), the chain kinds' properties (Arbitrum's settlement) and the miner's address object,
 * the same on every row of a page, so rendered once per page. The spliced text is byte for byte
 * what the schema's serializer makes of blockView (test/api/block-page-json.test.ts).
 */
import { Type } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';
import { blockType } from '../../db/model/block.js';
import type { PageBlock } from '../../db/queries/blocks.js';
import { chainFieldViews, CHAIN_KIND_KEYS, type KindReads } from '../../chains/index.js';
import { BlockObject, BlocksValidatedPage } from '../schemas/blocks.js';
import { AddressObject } from '../schemas/address.js';
import { gasTargetOf, storedBlockFields, type ChangingBlockField } from './block.js';

const CHANGING_BLOCK_FIELDS: ChangingBlockField[] = ['type', 'miner', 'gas_target_percentage', ...CHAIN_KIND_KEYS];
const storedJson = fastJson(Type.Omit(BlockObject, CHANGING_BLOCK_FIELDS));
const kindsJson = fastJson(Type.Pick(BlockObject, [...CHAIN_KIND_KEYS]));
const numberJson = fastJson(Type.Number());
const nextPageJson = fastJson(BlocksValidatedPage.properties.next_page_params);
// Once per page, so the schema's own serializer: the miner object's bytes stay the schema's
// (address-json.ts, made for a different address on every row, puts the tags last).
const addressObjectJson = fastJson(AddressObject);

/**
 * The stored part of a block object as JSON (a JSON object itself), rendered when the block is
 * written: db/queries/write-blocks.ts and the backfill of blocks written before (block-pages.ts).
 */
export function blockPageJson(block: PageBlock): string {
  return storedJson(storedBlockFields(block));
}

// Where the changing fields go in the schema's order: `type` and `miner` right before `size`,
// gas_target_percentage right before base_fee_per_gas, the kinds' properties last. The stored
// part's values before those keys are numbers and hex, decimal or ISO-time strings: the first
// match is the key.
const SIZE_KEY = ',"size":';
const BASE_FEE_KEY = ',"base_fee_per_gas":';

/** What a page row has beside its stored part. */
export interface BlockPageItem {
  /** blockPageJson of the stored row */
  pageJson: string;
  number: bigint;
  consensus: boolean;
  isUncle: boolean;
  gasUsed: bigint;
  gasLimit: bigint;
  chainFields: PageBlock['chainFields'];
  kinds: KindReads;
}

export interface BlocksPageView {
  /** the address object of every item's `miner` (private-data.ts decorates it in place); null on an empty page */
  miner: AddressObject | null;
  items: BlockPageItem[];
  elasticity: number;
  next_page_params: { block_number: number; items_count: number; key?: string } | null;
}

function itemJson(item: BlockPageItem, minerJson: string, elasticity: number): string {
  const json = item.pageJson;
  const size = json.indexOf(SIZE_KEY);
  const baseFee = json.indexOf(BASE_FEE_KEY, size);
  const kinds = item.chainFields === null ? '' : kindsJson(chainFieldViews(item.chainFields, item.kinds)).slice(1, -1);
  return (
    `${json.slice(0, size)},"type":"${blockType(item)}","miner":${minerJson}${json.slice(size, baseFee)}` +
    `,"gas_target_percentage":${numberJson(gasTargetOf(item, elasticity))}${json.slice(baseFee, -1)}${kinds === '' ? '' : `,${kinds}`}}`
  );
}

/** The blocks-validated page (schema BlocksValidatedPage) as JSON. */
export function blocksPageJson(page: BlocksPageView): string {
  const minerJson = page.miner === null ? 'null' : addressObjectJson(page.miner);
  const items = page.items.map((item) => itemJson(item, minerJson, page.elasticity));
  return pageJson(items, page.next_page_params);
}

const pageJson = (items: string[], next: BlocksPageView['next_page_params']) =>
  `{"items":[${items.join(',')}],"next_page_params":${nextPageJson(next)}}`;

/** A row of the chain's block lists, each with a miner of its own. */
export interface BlockListItemView extends BlockPageItem {
  /** its address object (private-data.ts decorates it in place) */
  miner: AddressObject;
}

export interface BlocksListView {
  items: BlockListItemView[];
  elasticity: number;
  /** null on the home page's list, a bare array */
  next_page_params: BlocksPageView['next_page_params'];
}

const listItems = (page: BlocksListView) => page.items.map((item) => itemJson(item, addressObjectJson(item.miner), page.elasticity));

/** `/blocks` (schema BlocksValidatedPage: the same page of block objects) as JSON. */
export function blocksListJson(page: BlocksListView): string {
  return pageJson(listItems(page), page.next_page_params);
}

/** The home page's latest blocks: a bare array of block objects. */
export function latestBlocksJson(page: BlocksListView): string {
  return `[${listItems(page).join(',')}]`;
}
