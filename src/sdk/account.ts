import type { Static } from '@sinclair/typebox';
import type { AccountEntriesPage as AccountEntriesPageSchema, AccountEntryBody, AccountEntryObject } from '../api/schemas/account.js';
import type { Transport } from './transport.js';

/** A private tag or watchlist entry of this key: `{id, address_hash, name}`. */
export type AccountEntry = Static<typeof AccountEntryObject>;
/** What POST and PUT take: `{address_hash, name}` (name: 1 to 35 characters). */
export type AccountEntryInput = Static<typeof AccountEntryBody>;
export type AccountEntriesPage = Static<typeof AccountEntriesPageSchema>;

/** One of the account API's lists (the key is the account). */
export interface AccountList {
  /** Newest first; pass `next_page_params.id` back as `before` for the next page. */
  list(options?: { before?: number | undefined; itemsCount?: number | undefined; signal?: AbortSignal | undefined }): Promise<AccountEntriesPage>;
  add(entry: AccountEntryInput, options?: { signal?: AbortSignal | undefined }): Promise<AccountEntry>;
  update(id: number, entry: AccountEntryInput, options?: { signal?: AbortSignal | undefined }): Promise<AccountEntry>;
  remove(id: number, options?: { signal?: AbortSignal | undefined }): Promise<void>;
}

export interface AccountApi {
  /** `/api/account/v2/user/tags/address`: shown as `private_tags` on address objects, to this key only */
  privateTags: AccountList;
  /** `/api/account/v2/user/watchlist`: shown as `watchlist_names`, to this key only */
  watchlist: AccountList;
}

function accountList(http: Transport, path: string): AccountList {
  return {
    list: (o = {}) => http.send('GET', path, undefined, { id: o.before, items_count: o.itemsCount }, o.signal),
    add: (entry, o = {}) => http.send('POST', path, entry, {}, o.signal),
    update: (id, entry, o = {}) => http.send('PUT', `${path}/${id}`, entry, {}, o.signal),
    remove: async (id, o = {}) => {
      await http.send('DELETE', `${path}/${id}`, undefined, {}, o.signal);
    },
  };
}

export function accountApi(http: Transport): AccountApi {
  return {
    privateTags: accountList(http, '/api/account/v2/user/tags/address'),
    watchlist: accountList(http, '/api/account/v2/user/watchlist'),
  };
}
