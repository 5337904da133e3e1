import { ExplorerError } from './errors.js';
import type { Page } from './types.js';

/**
 * Pages from `start` on, each request carrying the previous page's `next_page_params` exactly
 * as the server gave them (keyset values, items_count, token_id, the echoed key). A server
 * that hands back the same position twice would loop forever: that is an error instead.
 */
export async function* paginate<Item, Params extends object>(
  fetchPage: (params: Params | undefined) => Promise<Page<Item, Params>>,
  start: Params | undefined,
): AsyncGenerator<Page<Item, Params>, void, undefined> {
  let params = start;
  let previous = params === undefined ? null : JSON.stringify(params);
  for (;;) {
    const page = await fetchPage(params);
    yield page;
    if (page.next_page_params === null || page.next_page_params === undefined) return;
    const next = JSON.stringify(page.next_page_params);
    if (next === previous) throw new ExplorerError(200, `paging does not advance: ${next}`, '', page.next_page_params);
    previous = next;
    params = page.next_page_params;
  }
}

/** The items of every page, in order. */
export async function* itemsOf<Item>(pages: AsyncIterable<Page<Item, unknown>>): AsyncGenerator<Item, void, undefined> {
  for await (const page of pages) yield* page.items;
}
