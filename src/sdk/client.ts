import { itemsOf, paginate } from './paginate.js';
import { accountApi, type AccountApi } from './account.js';
import { createTransport, type QueryValue, type TransportOptions } from './transport.js';
import type {
  Block,
  BlocksPageParams,
  BlocksValidatedPage,
  HolderItem,
  HoldersPage,
  HoldersPageParams,
  SingleBlock,
  TokenCounters,
} from './types.js';

export type ExplorerClientOptions = TransportOptions;

export interface PageOptions<Params> {
  /** page size, 1 to 50 (the server's default is 50) */
  itemsCount?: number | undefined;
  /** the operator's secret for restricted addresses */
  key?: string | undefined;
  /** where to start: a `next_page_params` from an earlier page, passed on unchanged */
  after?: Params | undefined;
  signal?: AbortSignal | undefined;
}

export type HoldersOptions = PageOptions<HoldersPageParams> & {
  /** the holders as of the end of this block (the server's `block_number`); every page stays on it */
  blockNumber?: number | bigint | undefined;
  /**
   * only the holders of this ERC-1155 token id (decimal digits or a bigint: ids are uint256), from
   * `…/tokens/{token}/instances/{id}/holders`; with `blockNumber` too, at that block
   */
  tokenId?: bigint | string | undefined;
};
export type ValidatedBlocksOptions = PageOptions<BlocksPageParams>;
export type BlocksOptions = PageOptions<BlocksPageParams> & {
  /** `block` (the default: the consensus chain), `uncle` or `reorg` */
  type?: 'block' | 'uncle' | 'reorg' | undefined;
};

export interface ExplorerClient {
  /** One page of a token's holders, largest balance first. */
  holders(chainId: number | string, token: string, options?: HoldersOptions): Promise<HoldersPage>;
  /** One page of the blocks an address validated, newest first. */
  validatedBlocks(chainId: number | string, address: string, options?: ValidatedBlocksOptions): Promise<BlocksValidatedPage>;
  holdersPages(chainId: number | string, token: string, options?: HoldersOptions): AsyncGenerator<HoldersPage, void, undefined>;
  validatedBlocksPages(
    chainId: number | string,
    address: string,
    options?: ValidatedBlocksOptions,
  ): AsyncGenerator<BlocksValidatedPage, void, undefined>;
  /** Every holder, page after page, until next_page_params is null. */
  iterateHolders(chainId: number | string, token: string, options?: HoldersOptions): AsyncGenerator<HolderItem, void, undefined>;
  /** Every validated block, page after page, until next_page_params is null. */
  iterateValidatedBlocks(
    chainId: number | string,
    address: string,
    options?: ValidatedBlocksOptions,
  ): AsyncGenerator<Block, void, undefined>;
  /** One page of the chain's blocks (or its uncles, or its reorged blocks), newest first. */
  blocks(chainId: number | string, options?: BlocksOptions): Promise<BlocksValidatedPage>;
  blocksPages(chainId: number | string, options?: BlocksOptions): AsyncGenerator<BlocksValidatedPage, void, undefined>;
  /** Every block of the list, page after page, until next_page_params is null. */
  iterateBlocks(chainId: number | string, options?: BlocksOptions): AsyncGenerator<Block, void, undefined>;
  /** The chain's four latest blocks, as the reference's home page shows them. */
  latestBlocks(chainId: number | string, options?: { signal?: AbortSignal | undefined }): Promise<Block[]>;
  /**
   * One block by number or hash. A number whose block lost consensus is a NotFoundError whose
   * `body.hash` names the non-consensus block.
   */
  block(chainId: number | string, numberOrHash: number | bigint | string, options?: { signal?: AbortSignal | undefined }): Promise<SingleBlock>;
  /**
   * The token's holder count (as a decimal string), e.g. for a progress total; with
   * `blockNumber`, at that block (and an ERC-20's `total_supply` there).
   */
  tokenCounters(chainId: number | string, token: string, options?: { key?: string | undefined; blockNumber?: number | bigint | undefined; signal?: AbortSignal | undefined }): Promise<TokenCounters>;
  /** This key's private tags and watchlist (on every chain), shown on address objects to this key only. */
  account: AccountApi;
}

/** First-page values, overridden by the position's own (so its items_count and key win). */
function pageQuery<Params extends object>(options: PageOptions<Params>, after: Params | undefined): Record<string, QueryValue> {
  return { items_count: options.itemsCount, key: options.key, ...(after as Record<string, QueryValue> | undefined) };
}

export function createExplorerClient(options: ExplorerClientOptions): ExplorerClient {
  const http = createTransport(options);
  const segment = (hash: string) => encodeURIComponent(hash);

  const blockQuery = (blockNumber: number | bigint | undefined) => (blockNumber === undefined ? undefined : blockNumber.toString());
  // the first page names the block; next_page_params carries it on from there
  const holdersAt = (chainId: number | string, token: string, options: HoldersOptions, after: HoldersPageParams | undefined) => {
    // a position is of one snapshot: asked at another block it would serve its own, silently
    if (options.blockNumber !== undefined && after?.block_number !== undefined && BigInt(after.block_number) !== BigInt(options.blockNumber)) {
      return Promise.reject(new TypeError(`after is a position in the holders at block ${after.block_number}, not at blockNumber ${options.blockNumber}`));
    }
    const list = options.tokenId === undefined ? 'holders' : `instances/${segment(String(options.tokenId))}/holders`;
    return http.get<HoldersPage>(
      chainId,
      `/tokens/${segment(token)}/${list}`,
      { block_number: blockQuery(options.blockNumber), ...pageQuery(options, after) },
      options.signal,
    );
  };
  const blocksAt = (
    chainId: number | string,
    address: string,
    options: ValidatedBlocksOptions,
    after: BlocksPageParams | undefined,
  ) => http.get<BlocksValidatedPage>(chainId, `/addresses/${segment(address)}/blocks-validated`, pageQuery(options, after), options.signal);

  const listAt = (chainId: number | string, options: BlocksOptions, after: BlocksPageParams | undefined) =>
    http.get<BlocksValidatedPage>(chainId, '/blocks', { type: options.type, ...pageQuery(options, after) }, options.signal);

  const client: ExplorerClient = {
    holders: (chainId, token, options = {}) => holdersAt(chainId, token, options, options.after),
    validatedBlocks: (chainId, address, options = {}) => blocksAt(chainId, address, options, options.after),
    holdersPages: (chainId, token, options = {}) => paginate((after) => holdersAt(chainId, token, options, after), options.after),
    validatedBlocksPages: (chainId, address, options = {}) =>
      paginate((after) => blocksAt(chainId, address, options, after), options.after),
    iterateHolders: (chainId, token, options) => itemsOf(client.holdersPages(chainId, token, options)),
    iterateValidatedBlocks: (chainId, address, options) => itemsOf(client.validatedBlocksPages(chainId, address, options)),
    blocks: (chainId, options = {}) => listAt(chainId, options, options.after),
    blocksPages: (chainId, options = {}) => paginate((after) => listAt(chainId, options, after), options.after),
    iterateBlocks: (chainId, options) => itemsOf(client.blocksPages(chainId, options)),
    latestBlocks: (chainId, options = {}) => http.get<Block[]>(chainId, '/main-page/blocks', {}, options.signal),
    block: (chainId, numberOrHash, options = {}) =>
      http.get<SingleBlock>(chainId, `/blocks/${segment(String(numberOrHash))}`, {}, options.signal),
    tokenCounters: (chainId, token, options = {}) =>
      http.get<TokenCounters>(
        chainId,
        `/tokens/${segment(token)}/counters`,
        { key: options.key, block_number: blockQuery(options.blockNumber) },
        options.signal,
      ),
    account: accountApi(http),
  };
  return client;
}
