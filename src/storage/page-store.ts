// The stored pages' group of the Store: the site's pages rendered on the write path (src/web/pages.ts).

/** A page as the site serves it, rendered from the reports of one state. */
export interface StoredPage {
  /** the build id, the options that change the HTML and the canonical URL (pageParams) */
  key: string;
  /** the body of the reports' `_state` row it was rendered from */
  state: string;
  /** JSON: the headers its route set, and its body */
  body: string;
  builtAt: number;
}

export interface PageStore {
  /** The body of the page `key` when it was rendered from the reports now stored, in one read. */
  current(key: string): Promise<string | undefined>;
  /** every stored page */
  list(): Promise<StoredPage[]>;
  /** replace every stored page by these, all or nothing */
  replace(rows: StoredPage[]): Promise<void>;
}
