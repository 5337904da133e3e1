export { createExplorerClient } from './client.js';
export type { ExplorerClient, ExplorerClientOptions, HoldersOptions, PageOptions, ValidatedBlocksOptions, BlocksOptions } from './client.js';
export {
  ConnectionError,
  ExplorerError,
  NotFoundError,
  RateLimitedError,
  RestrictedError,
  ServiceUnavailableError,
  UnauthorizedError,
  ValidationError,
} from './errors.js';
export { retryDelayMs } from './transport.js';
export type * from './types.js';
export type { AccountApi, AccountEntry, AccountEntryInput, AccountEntriesPage, AccountList } from './account.js';
