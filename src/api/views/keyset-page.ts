/**
 * A page of a list read one row past its size (`size + 1`), so that the extra row says whether a
 * next page exists: the page's items, and the position after its last one, or null at the end.
 */
export function keysetPage<Row, Item, Params>(
  rows: readonly Row[],
  size: number,
  view: (row: Row) => Item,
  after: (last: Row) => Params,
): { items: Item[]; next_page_params: (Params & { items_count: number }) | null } {
  const page = rows.slice(0, size);
  const last = page[page.length - 1];
  return { items: page.map(view), next_page_params: rows.length > size && last !== undefined ? { ...after(last), items_count: size } : null };
}
