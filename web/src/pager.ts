/**
 * Back and forward over keyset-paged results: the API only gives the way forward
 * (next_page_params), so the cursor that opened each page seen so far is kept on a stack.
 * Moves are committed only after the page has loaded, so a failed request leaves it as it was.
 */
export class Pager<P> {
  private stack: (P | null)[] = [null];

  /** zero-based number of the page shown */
  get index(): number {
    return this.stack.length - 1;
  }

  get current(): P | null {
    return this.stack[this.stack.length - 1] ?? null;
  }

  get hasPrevious(): boolean {
    return this.stack.length > 1;
  }

  /** the cursor of the page before this one (null: the first page) */
  get previous(): P | null {
    return this.stack[this.stack.length - 2] ?? null;
  }

  forward(cursor: P): void {
    this.stack.push(cursor);
  }

  back(): void {
    if (this.stack.length > 1) this.stack.pop();
  }
}
