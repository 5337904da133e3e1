import { ApiError, getJson, type Block, type Page } from './api.js';
import { addressCell } from './address.js';
import { chainName } from './chains.js';
import type { ViewContext } from './context.js';
import { byId, h } from './dom.js';
import { formatAge, formatInteger, formatUnits } from './format.js';
import { PagedList } from './paged-list.js';
import { table, type Column } from './table.js';

const PAGE_SIZE = 50;
const COLUMNS: Column[] = [
  { label: 'Height', card: 'main' },
  { label: 'Age' },
  { label: 'Txns', numeric: true },
  { label: 'Gas used', numeric: true },
  { label: 'Fees', numeric: true },
];

export class BlocksView {
  private readonly list: PagedList<Block>;
  private readonly summary = byId('miner-summary');
  private readonly rows = byId('blocks-table');
  private path = '';
  private chainId = 0;

  constructor(private readonly ctx: ViewContext) {
    this.list = new PagedList<Block>({
      prev: byId('blocks-prev'),
      next: byId('blocks-next'),
      label: byId('blocks-page'),
      pageSize: PAGE_SIZE,
      fetchPage: (cursor, signal) => getJson<Page<Block>>(this.path, ctx.key(), cursor ?? {}, signal),
      render: (page) => this.render(page),
      // an unknown address has an empty list: a 404 here is a chain the server does not serve
      onError: (err) => ctx.fail(err instanceof ApiError && err.status === 404 ? new ApiError(404, `This server serves no chain ${this.chainId}.`) : err),
    });
  }

  async open(chainId: number, hash: string, signal: AbortSignal): Promise<void> {
    this.list.reset();
    this.chainId = chainId;
    this.path = `${chainId}/api/v2/addresses/${hash}/blocks-validated`;
    this.summary.replaceChildren(h('h2', {}, 'Blocks validated by'), h('p', { className: 'hash mono' }, hash));
    this.rows.replaceChildren();
    const first = await this.list.start();
    if (!first || signal.aborted) return;
    this.ctx.info('');
    const miner = first.items[0]?.miner;
    if (miner) this.summary.replaceChildren(h('h2', {}, 'Blocks validated by'), addressCell(miner));
  }

  cancel(): void {
    this.list.cancel();
  }

  private render(page: Page<Block>): void {
    if (page.items.length === 0) {
      this.rows.replaceChildren(h('p', { className: 'muted' }, `This address has validated no blocks on ${chainName(this.chainId)}.`));
      return;
    }
    const now = Date.now();
    const rows = page.items.map((b) => [
      h('span', { className: 'height' }, String(b.height), b.type !== 'block' ? h('span', { className: 'badge badge-scam' }, b.type) : null),
      h('time', { datetime: b.timestamp, title: b.timestamp }, formatAge(b.timestamp, now)),
      formatInteger(b.transactions_count),
      h(
        'span',
        { className: 'gas' },
        formatInteger(BigInt(b.gas_used)),
        h('meter', { min: 0, max: 100, value: b.gas_used_percentage, title: `${b.gas_used_percentage}% of ${formatInteger(BigInt(b.gas_limit))}` }),
        h('span', { className: 'pct' }, `${b.gas_used_percentage.toFixed(2)}%`),
      ),
      h('span', { title: `${formatUnits(BigInt(b.transaction_fees), 18)} (${b.transaction_fees} wei)` }, formatUnits(BigInt(b.transaction_fees), 18, 6)),
    ]);
    this.rows.replaceChildren(table('Validated blocks, newest first', COLUMNS, rows));
  }
}
