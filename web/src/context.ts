/** What a view needs from the page around it. */
export interface ViewContext {
  key(): string | null;
  /** shows a failure in the status line */
  fail(err: unknown): void;
  info(text: string): void;
}
