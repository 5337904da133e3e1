/**
 * Wire shapes of the explorer API v2 (spec/000 and COMPATIBILITY.md), as served by this project
 * and by the hosted reference. They are the server's own response schemas (src/api/schemas/),
 * so the SDK cannot drift from what the server sends. Amounts and big integers are decimal
 * strings.
 */
import type { Static } from '@sinclair/typebox';
import type { AddressObject as AddressObjectSchema } from '../api/schemas/address.js';
import type { BlockObject, BlocksValidatedPage as BlocksPageSchema, SingleBlockObject } from '../api/schemas/blocks.js';
import type { HolderItem as HolderItemSchema, HoldersPage as HoldersPageSchema } from '../api/schemas/holders.js';
import type { TokenCounters as TokenCountersSchema } from '../api/schemas/tokens.js';
import type { ArbitrumBlockObject } from '../chains/arbitrum/schema.js';
import type { ValidationErrorBody } from '../api/schemas/common.js';

// (aliases, not re-exports: the schemas' names are values too, which a client has no use for)
export type AddressObject = Static<typeof AddressObjectSchema>;
export type TokenCounters = Static<typeof TokenCountersSchema>;
export type AddressTag = AddressObject['public_tags'][number];
export type MetadataTag = NonNullable<AddressObject['metadata']>['tags'][number];

export type HolderItem = Static<typeof HolderItemSchema>;
/** Where the next holders page starts; pass it back unchanged. ERC-1155 pages add `token_id`. */
export type HoldersPageParams = NonNullable<HoldersPageSchema['next_page_params']>;

export type ArbitrumFields = Static<typeof ArbitrumBlockObject>;
export type L1Transaction = NonNullable<ArbitrumFields['commitment_transaction']>;
export type Block = BlockObject;
/** `GET /blocks/{number or hash}`: the block object with blob_gas_price and burnt_blob_fees. */
export type SingleBlock = SingleBlockObject;
export type BlocksPageParams = NonNullable<BlocksPageSchema['next_page_params']>;

/** One page: `next_page_params` is null exactly when there is no further page. */
export interface Page<Item, Params> {
  items: Item[];
  next_page_params: Params | null;
}

export type HoldersPage = Page<HolderItem, HoldersPageParams>;
export type BlocksValidatedPage = Page<Block, BlocksPageParams>;

/** One entry of a 422 body. */
export type ValidationIssue = Static<typeof ValidationErrorBody>['errors'][number];
