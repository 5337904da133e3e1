import type { Page, Params } from './api.js';
import { Pager } from './pager.js';

export interface PagedListOptions<T> {
  prev: HTMLButtonElement;
  next: HTMLButtonElement;
  label: HTMLElement;
  pageSize: number;
  fetchPage(cursor: Params | null, signal: AbortSignal): Promise<Page<T>>;
  render(page: Page<T>, offset: number): void;
  onError(err: unknown): void;
}

/** One keyset-paged list with Previous/Next buttons; a newer load cancels an older one. */
export class PagedList<T> {
  private pager = new Pager<Params>();
  private nextCursor: Params | null = null;
  private inFlight: AbortController | null = null;

  constructor(private readonly o: PagedListOptions<T>) {
    o.next.addEventListener('click', () => {
      const cursor = this.nextCursor;
      if (cursor) void this.load(cursor, () => this.pager.forward(cursor));
    });
    o.prev.addEventListener('click', () => {
      if (this.pager.hasPrevious) void this.load(this.pager.previous, () => this.pager.back());
    });
  }

  /** Shows the first page; resolves to it (null when it failed or was superseded). */
  start(): Promise<Page<T> | null> {
    this.pager = new Pager<Params>();
    this.nextCursor = null;
    return this.load(null, () => {});
  }

  cancel(): void {
    this.inFlight?.abort();
    this.inFlight = null;
  }

  /**
   * Forgets the list shown, for another one to open: no label, no way back or forward, so a
   * search that fails leaves no pager whose buttons would send the old list's cursor.
   */
  reset(): void {
    this.cancel();
    this.pager = new Pager<Params>();
    this.nextCursor = null;
    this.o.label.textContent = '';
    this.setButtons(false);
  }

  private async load(cursor: Params | null, commit: () => void): Promise<Page<T> | null> {
    this.cancel();
    const controller = new AbortController();
    this.inFlight = controller;
    // a button pressed from the keyboard is disabled while the page loads, which drops its
    // focus: it is given back afterwards (to the other button when this one has no way on)
    const focused = [this.o.prev, this.o.next].find((b) => b === document.activeElement) ?? null;
    this.setButtons(true);
    try {
      const page = await this.o.fetchPage(cursor, controller.signal);
      if (controller.signal.aborted) return null;
      commit();
      this.nextCursor = page.next_page_params;
      const offset = this.pager.index * this.o.pageSize;
      this.o.render(page, offset);
      this.o.label.textContent =
        page.items.length === 0 ? `Page ${this.pager.index + 1}` : `Page ${this.pager.index + 1} · rows ${offset + 1}–${offset + page.items.length}`;
      return page;
    } catch (err) {
      if (!controller.signal.aborted) this.o.onError(err);
      return null;
    } finally {
      if (this.inFlight === controller) {
        this.inFlight = null;
        this.setButtons(false);
        if (focused !== null && (document.activeElement === null || document.activeElement === document.body)) {
          [focused, focused === this.o.next ? this.o.prev : this.o.next].find((b) => !b.disabled)?.focus();
        }
      }
    }
  }

  private setButtons(busy: boolean): void {
    this.o.prev.disabled = busy || !this.pager.hasPrevious;
    this.o.next.disabled = busy || this.nextCursor === null;
  }
}
