import { h } from './dom.js';

export interface Column {
  label: string;
  /** shown after the label as it is written (a token symbol: stETH is not STETH) */
  unit?: string;
  numeric?: boolean;
  /** on a phone card: `rank` is a small prefix, `main` the unlabelled headline beside it */
  card?: 'rank' | 'main';
}

/**
 * A plain table; each cell carries its column label so that narrow screens can lay rows out as
 * cards (see style.css) instead of scrolling sideways.
 */
export function table(caption: string, columns: readonly Column[], rows: readonly (Node | string)[][]): HTMLTableElement {
  const cls = (c: Column | undefined) => [c?.numeric ? 'num' : '', c?.card ? `card-${c.card}` : ''].join(' ').trim() || null;
  return h(
    'table',
    {},
    h('caption', { className: 'sr-only' }, caption),
    h(
      'thead',
      {},
      h('tr', {}, ...columns.map((c) => h('th', { scope: 'col', className: cls(c) }, c.label, c.unit ? h('span', { className: 'as-written' }, ` (${c.unit})`) : null))),
    ),
    h(
      'tbody',
      {},
      ...rows.map((cells) =>
        h('tr', {}, ...cells.map((cell, i) => h('td', { 'data-label': labelOf(columns[i]), className: cls(columns[i]) }, cell))),
      ),
    ),
  );
}

const labelOf = (c: Column | undefined) => (c === undefined ? undefined : c.unit ? `${c.label} (${c.unit})` : c.label);
