import { ApiError, getJson, type Counters, type Holder, type Page, type Params, type Token } from './api.js';
import { addressCell } from './address.js';
import { concentrationChart } from './chart.js';
import { chainName } from './chains.js';
import type { ViewContext } from './context.js';
import { byId, h } from './dom.js';
import { formatInteger, formatShare, formatUnits } from './format.js';
import { PagedList } from './paged-list.js';
import { table } from './table.js';

const PAGE_SIZE = 50;
/** the chart reads this many of the largest holders (two pages) */
const CHART_HOLDERS = 100;

export class HoldersView {
  private readonly list: PagedList<Holder>;
  private readonly summary = byId('token-summary');
  private readonly chart = byId('concentration');
  private readonly rows = byId('holders-table');
  private path = '';
  private decimals: number | null = null;
  private supply: bigint | null = null;
  private symbol = '';
  /** the past block the list is at (null: today's); later pages carry it in their cursor */
  private block: string | null = null;
  /** the one ERC-1155 token id listed (null: all of them) */
  private tokenId: string | null = null;
  /** the list's path: the token's holders, or one ERC-1155 id's (`instances/{id}/holders`) */
  private listPath = '';
  private readonly idField = byId('holders-id-field');

  constructor(private readonly ctx: ViewContext) {
    this.list = new PagedList<Holder>({
      prev: byId('holders-prev'),
      next: byId('holders-next'),
      label: byId('holders-page'),
      pageSize: PAGE_SIZE,
      fetchPage: (cursor, signal) => getJson<Page<Holder>>(this.listPath, ctx.key(), cursor ?? this.firstPage(), signal),
      render: (page, offset) => this.render(page, offset),
      onError: (err) => ctx.fail(err),
    });
  }

  private firstPage(): Params {
    return this.block === null ? {} : { block_number: this.block };
  }

  async open(chainId: number, hash: string, signal: AbortSignal, at: { block: string | null; tokenId: string | null }): Promise<void> {
    const { block, tokenId } = at;
    this.list.reset();
    this.path = `${chainId}/api/v2/tokens/${hash}`;
    this.listPath = tokenId === null ? `${this.path}/holders` : `${this.path}/instances/${tokenId}/holders`;
    this.block = block;
    this.tokenId = tokenId;
    this.summary.replaceChildren();
    this.chart.replaceChildren();
    this.rows.replaceChildren();
    // the live counters, for the transfer count, asked beside the token; not having them only leaves it unknown
    const countersNow = block === null ? getJson<Counters>(`${this.path}/counters`, this.ctx.key(), {}, signal).catch(() => null) : Promise.resolve(null);
    let token: Token;
    try {
      token = await getJson<Token>(this.path, this.ctx.key(), {}, signal);
    } catch (err) {
      if (signal.aborted) return;
      if (err instanceof ApiError && err.status === 404) {
        this.ctx.fail(new ApiError(404, `No token is known at ${hash} on ${chainName(chainId)}.`));
      } else {
        this.ctx.fail(err);
      }
      return;
    }
    if (signal.aborted) return;
    this.idField.hidden = token.type !== 'ERC-1155';
    if (tokenId !== null && token.type !== 'ERC-1155') {
      this.ctx.fail(new ApiError(404, `Token IDs are listed for ERC-1155 tokens only; this one is ${token.type}.`));
      return;
    }
    this.decimals = token.decimals === null ? null : Number(token.decimals);
    let supply = token.total_supply === null ? null : BigInt(token.total_supply);
    this.symbol = token.symbol ?? '';
    let atBlock: Counters | null = null;
    if (block !== null) {
      try {
        atBlock = await getJson<Counters>(`${this.path}/counters`, this.ctx.key(), { block_number: block }, signal);
      } catch (err) {
        if (!signal.aborted) this.ctx.fail(err instanceof ApiError && err.status === 404 ? new ApiError(404, `No holders of this token are known at block ${block}: none of its transfers had happened by then.`) : err);
        return;
      }
      // shares are of the supply at that block, where the server knows it
      if (atBlock.total_supply !== undefined) supply = BigInt(atBlock.total_supply);
    }
    // the token's supply is of all its ids: one id's holders get no shares
    this.supply = tokenId === null ? supply : null;
    const transfers = (await countersNow)?.transfers_count ?? null;
    if (signal.aborted) return;
    this.summary.replaceChildren(tokenSummary(token, this.decimals, at, atBlock ?? { transfers }, supply));
    const first = await this.list.start();
    if (!first || signal.aborted) return;
    this.ctx.info('');
    if (token.type !== 'ERC-1155') await this.drawChart(first, signal);
  }

  cancel(): void {
    this.list.cancel();
  }

  private render(page: Page<Holder>, offset: number): void {
    const withIds = page.items.some((i) => i.token_id !== null);
    const columns = [
      { label: '#', numeric: true, card: 'rank' as const },
      { label: 'Address', card: 'main' as const },
      ...(withIds ? [{ label: 'Token ID' }] : []),
      { label: 'Balance', ...(this.symbol ? { unit: this.symbol } : {}), numeric: true },
      { label: 'Share', numeric: true },
    ];
    const rows = page.items.map((item, i) => {
      const value = BigInt(item.value);
      return [
        String(offset + i + 1),
        addressCell(item.address),
        ...(withIds ? [h('span', { className: 'mono' }, item.token_id ?? '')] : []),
        h('span', { className: 'balance', title: `${item.value} base units` }, formatUnits(value, this.decimals)),
        formatShare(value, this.supply),
      ];
    });
    this.rows.replaceChildren(
      rows.length > 0
        ? table('Token holders, largest first', columns, rows)
        : h('p', { className: 'muted' }, this.tokenId === null ? 'This token has no holders.' : `No address holds token ID ${this.tokenId}.`),
    );
  }

  /** One more page than the table shows at first, so the top 100 is known. */
  private async drawChart(first: Page<Holder>, signal: AbortSignal): Promise<void> {
    const items = [...first.items];
    if (items.length < CHART_HOLDERS && first.next_page_params) {
      try {
        const more = await getJson<Page<Holder>>(`${this.path}/holders`, this.ctx.key(), first.next_page_params, signal);
        items.push(...more.items);
      } catch {
        // the chart is an extra: drawn from what there is
      }
    }
    if (signal.aborted) return;
    const values = items.slice(0, CHART_HOLDERS).map((i) => BigInt(i.value));
    this.chart.replaceChildren(
      h('h3', {}, 'Holder concentration'),
      concentrationChart(values, this.supply),
    );
  }
}

function tokenSummary(
  token: Token,
  decimals: number | null,
  { block, tokenId }: { block: string | null; tokenId: string | null },
  /** the counters at the block asked for, or the live transfer count (null: not known) */
  counts: Counters | { transfers: string | null },
  supplyNow: bigint | null,
): HTMLElement {
  const title = token.name ?? 'Unnamed token';
  const atBlock = 'token_holders_count' in counts ? counts : null;
  const holders = atBlock ? atBlock.token_holders_count : token.holders_count;
  const at = block === null ? '' : ` at block ${block}`;
  // with one id listed, the token's counts are still of all its ids: said so
  const allIds = tokenId === null ? '' : ' (all IDs)';
  const supply = supplyNow === null ? 'unknown' : formatUnits(supplyNow, decimals);
  const fact = (label: string, value: string) => h('div', {}, h('dt', {}, label), h('dd', {}, value));
  return h(
    'div',
    { className: 'summary' },
    h('h2', {}, title, token.symbol ? h('span', { className: 'muted' }, ` (${token.symbol})`) : null),
    h('p', { className: 'hash mono' }, token.address_hash),
    h(
      'dl',
      {},
      fact('Type', token.type),
      ...(tokenId === null ? [] : [fact('Token ID', tokenId)]),
      fact(`Holders${allIds}${at}`, formatInteger(BigInt(holders))),
      fact(`Total supply${allIds}${atBlock?.total_supply !== undefined ? at : ''}`, supply),
      fact('Decimals', token.decimals ?? '—'),
      // not counted per block: shown with the live counts only
      ...('transfers' in counts ? [fact(`Transfers${allIds}`, counts.transfers === null ? 'unknown' : formatInteger(BigInt(counts.transfers)))] : []),
    ),
  );
}
